import Testing

@testable import MediaTerminal

@Suite struct DisplayWidthTests {
    @Test func widths() {
        #expect(DisplayWidth.of("hello") == 5)
        #expect(DisplayWidth.of("日本語") == 6)
        #expect(DisplayWidth.of("é") == 1)
        #expect(DisplayWidth.of("e\u{301}") == 1)  // e + combining acute
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👍🏽") == 2)
        #expect(DisplayWidth.of("\u{200B}") == 0)
    }

    @Test func truncateAndPad() {
        #expect(DisplayWidth.truncate("hello world", to: 8) == "hello w…")
        #expect(DisplayWidth.truncate("hello", to: 5) == "hello")
        #expect(DisplayWidth.truncate("日本語テキスト", to: 7) == "日本語…")
        #expect(DisplayWidth.of(DisplayWidth.truncate("日本語テキスト", to: 6)) <= 6)
        #expect(DisplayWidth.pad("ab", to: 4) == "ab  ")
        #expect(DisplayWidth.pad("ab", to: 4, alignRight: true) == "  ab")
    }

    @Test func controlCharactersNeverReachTheTerminal() {
        #expect(DisplayWidth.singleLine("two\nlines\tand\u{1B}[31m escape") == "two lines and [31m escape")
        #expect(DisplayWidth.singleLine("  spaced   out  ") == "spaced out")
    }
}

@Suite struct TableTests {
    private func sample() -> Table {
        var table = Table(columns: [
            .init("#", alignRight: true),
            .init("TITLE", minimumWidth: 5, shrinkWeight: 2),
            .init("STATE", minimumWidth: 6),
        ])
        table.append(["1", "A rather long title indeed", "not downloaded"])
        table.append(["10", "Short", "cached"])
        return table
    }

    @Test func naturalWidthWithoutALimit() {
        let lines = sample().render(maximumWidth: nil, colors: false)
        #expect(lines == [
            " #  TITLE                       STATE",
            " 1  A rather long title indeed  not downloaded",
            "10  Short                       cached",
        ])
    }

    @Test func shrinksToFitAndNeverOverflows() {
        for width in 20...60 {
            let lines = sample().render(maximumWidth: width, colors: false)
            for line in lines {
                #expect(DisplayWidth.of(line) <= width, "width \(width): \(line)")
            }
        }
        let lines = sample().render(maximumWidth: 30, colors: false)
        #expect(lines[1] == " 1  A rather long …  not down…")
    }

    @Test func colorsDoNotCountTowardsWidth() {
        var table = Table(columns: [.init("A"), .init("B", minimumWidth: 3)])
        table.append([Table.Cell("x", style: .red), Table.Cell("long text here", style: .green)])
        let lines = table.render(maximumWidth: 10, colors: true)
        #expect(lines[1] == "\u{1B}[31mx\u{1B}[0m  \u{1B}[32mlong t…\u{1B}[0m")
    }

    @Test func byteCounts() {
        #expect(formatByteCount(0) == "0 B")
        #expect(formatByteCount(1023) == "1023 B")
        #expect(formatByteCount(1536) == "1.5 KiB")
        #expect(formatByteCount(150 * 1024 * 1024) == "150 MiB")
        #expect(formatByteCount(5 * 1024 * 1024 * 1024) == "5.0 GiB")
    }
}
