import Testing
@testable import MediaTerminal

struct KeyAndTextTests {
    @Test func decodesKeysFromEveryTerminalFamily() {
        var decoder = KeyDecoder()
        let bytes: [UInt8] = Array("\u{1B}[A\u{1B}OB\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[4~ q\r\u{7F}\u{1A}é".utf8)
        #expect(decoder.decode(bytes) == [
            .up, .down, .pageUp, .pageDown, .home, .end, .character(" "), .character("q"), .enter, .backspace, .control("z"), .character("é"),
        ])
        // A lone Escape, a click and the wheel (SGR mouse reports).
        #expect(decoder.decode(Array("\u{1B}".utf8)) == [.escape])
        #expect(decoder.decode(Array("\u{1B}[<0;12;5M\u{1B}[<0;12;5m\u{1B}[<65;1;1M".utf8)) == [.click(column: 11, row: 4), .wheel(up: false)])
    }

    @Test func keepsASequenceSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[".utf8)) == [])
        #expect(decoder.decode(Array("5~".utf8)) == [.pageUp])
        #expect(decoder.decode([0xC3]) == [])
        #expect(decoder.decode([0xA9]) == [.character("é")])
    }

    @Test func wrapsAtSpacesAndCutsTheLastLine() {
        #expect(DisplayWidth.wrap("one two three four", width: 9) == ["one two", "three", "four"])
        #expect(DisplayWidth.wrap("one two three four", width: 9, maxLines: 2) == ["one two", "three…"])
        #expect(DisplayWidth.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(DisplayWidth.wrap("exactly9 ninechars", width: 9, maxLines: 1) == ["exactly9…"])
        #expect(DisplayWidth.wrap("", width: 5) == [""])
        for line in DisplayWidth.wrap("漢字漢字漢字 wide", width: 5, maxLines: 2) { #expect(DisplayWidth.of(line) <= 5) }
    }

    /// A box drawn over half of a wide character or part of a picture's run
    /// leaves the row exactly as wide (the help box over browse's grid came
    /// out three columns short).
    @Test func overwritingHalfAWideCharacterOrARunKeepsTheRowWide() {
        var canvas = Canvas(width: 12, height: 3)
        canvas.put("漢字漢字", column: 0, row: 0)
        canvas.put("│", column: 1, row: 0)
        canvas.put("│", column: 6, row: 0)
        canvas.putRun("\u{1B}[31m▄▄▄▄\u{1B}[0m", columns: 4, column: 2, row: 1)
        canvas.put("│", column: 4, row: 1)
        canvas.putRun("\u{1B}[32m▄▄▄▄\u{1B}[0m", columns: 4, column: 4, row: 2)
        canvas.put("│", column: 4, row: 2)
        for line in canvas.plainLines { #expect(DisplayWidth.of(line) == 12, "\(line)") }
        #expect(canvas.plainLines[0].hasPrefix(" │字"))
    }

    /// A zero-width space or a combining mark takes no cell: the next
    /// column stays where the terminal draws it (a title with a zero-width
    /// space shifted browse's next column left).
    @Test func zeroWidthCharactersTakeNoCell() {
        var canvas = Canvas(width: 10, height: 2)
        let written = canvas.put("a\u{200B}b", column: 0, row: 0)
        canvas.put("|", column: 3, row: 0)
        canvas.put("e\u{301}\u{200D}x", column: 0, row: 1)
        canvas.put("|", column: 3, row: 1)
        #expect(written == 2)
        #expect(canvas.plainLines[0] == "a\u{200B}b |      ")
        for line in canvas.plainLines { #expect(DisplayWidth.of(line) == 10, "\(line)") }
        #expect(canvas.plainLines.allSatisfy { line in DisplayWidth.of(String(line.prefix { $0 != "|" })) == 3 })
    }

    @Test func canvasClipsAndFrameRewritesOnlyChangedRows() {
        var canvas = Canvas(width: 6, height: 2)
        canvas.put("hello world", column: 2, row: 0, style: "1")
        canvas.put("漢字漢字", column: 1, row: 1)
        #expect(canvas.plainLines == ["  hell", " 漢字 "])
        var frame = ScreenFrame()
        let first = frame.update(to: canvas.lines)
        #expect(first.rows == [0, 1])
        canvas.put("x", column: 0, row: 1)
        let second = frame.update(to: canvas.lines)
        #expect(second.rows == [1])
        #expect(frame.update(to: canvas.lines).output.isEmpty)
    }
}
