import MediaControl
import Testing

@Suite struct LineSplitterTests {
    private func split(_ chunks: [String], limit: Int = 16) -> [LineSplitter.Piece] {
        var splitter = LineSplitter(maximumLength: limit)
        var pieces: [LineSplitter.Piece] = []
        for chunk in chunks {
            pieces += Array(chunk.utf8).withUnsafeBytes { splitter.append($0) }
        }
        if let last = splitter.finish() { pieces.append(last) }
        return pieces
    }

    @Test func linesAcrossChunks() {
        #expect(split(["ab", "c\nde\r\n", "f"]) == [.line(Array("abc".utf8)), .line(Array("de".utf8)), .line(Array("f".utf8))])
    }

    @Test func anOverlongLineIsReportedOnceAndSkipped() {
        let long = String(repeating: "x", count: 40)
        #expect(split([long.prefix(20) + "", long.suffix(20) + "\nok\n"]) == [.tooLong, .line(Array("ok".utf8))])
    }

    @Test func emptyLinesAreLines() {
        #expect(split(["\n\n"]) == [.line([]), .line([])])
    }
}
