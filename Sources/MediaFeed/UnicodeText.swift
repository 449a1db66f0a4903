/// A feed's bytes as UTF-8, whatever Unicode encoding they came in: every
/// reader (the format's sniffing included) reads UTF-8 only, and a feed
/// saved by a Windows editor is often UTF-16 with a byte order mark.
struct UnicodeText {
    /// The text, in UTF-8, without a byte order mark when it was transcoded.
    var bytes: [UInt8]
    /// The encoding the bytes came in, when it was not UTF-8: an XML
    /// declaration's `encoding="UTF-16"` no longer holds.
    var transcodedFrom: String?

    /// As much text as a feed file may hold (the 64 MiB a feed file is read
    /// up to), once in UTF-8: UTF-16 grows by half for most scripts.
    static let maximumBytes = 64 << 20

    private enum Encoding: String {
        case utf16LE = "UTF-16LE", utf16BE = "UTF-16BE", utf32LE = "UTF-32LE", utf32BE = "UTF-32BE"

        var unitSize: Int { self == .utf16LE || self == .utf16BE ? 2 : 4 }
        var isLittleEndian: Bool { self == .utf16LE || self == .utf32LE }
    }

    /// The bytes as they are when they are not UTF-16 or UTF-32 (told by a
    /// byte order mark, or by the zero bytes around a first `<`, `{` or
    /// `[`), else transcoded, a broken unit becoming U+FFFD.
    static func utf8(_ bytes: [UInt8]) throws(FeedError) -> UnicodeText {
        guard let (encoding, start) = encoding(of: bytes) else { return UnicodeText(bytes: bytes) }
        let size = encoding.unitSize
        let count = (bytes.count - start) / size
        func unit(_ index: Int) -> UInt32 {
            let base = start + index * size
            var value: UInt32 = 0
            for offset in 0..<size {
                let byte = UInt32(bytes[encoding.isLittleEndian ? base + size - 1 - offset : base + offset])
                value = value << 8 | byte
            }
            return value
        }
        var text = ""
        if size == 2 {
            text = String(decoding: (0..<count).lazy.map { UInt16(truncatingIfNeeded: unit($0)) }, as: UTF16.self)
        } else {
            text = String(decoding: (0..<count).lazy.map(unit), as: UTF32.self)
        }
        // An odd byte left over is a broken unit too.
        if (bytes.count - start) % size != 0 { text.append("\u{FFFD}") }
        guard text.utf8.count <= maximumBytes else {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "the feed is larger than \(maximumBytes >> 20) MiB once read from \(encoding.rawValue) into UTF-8; is it really a feed?")
        }
        return UnicodeText(bytes: Array(text.utf8), transcodedFrom: encoding.rawValue)
    }

    /// The encoding and where the text starts (after its byte order mark),
    /// or nil for UTF-8 and anything else.
    private static func encoding(of bytes: [UInt8]) -> (Encoding, Int)? {
        let head = Array(bytes.prefix(4)) + [UInt8](repeating: 0xAA, count: max(0, 4 - bytes.count))
        // UTF-32 first: its little-endian mark begins as UTF-16's does.
        if head == [0xFF, 0xFE, 0, 0] { return (.utf32LE, 4) }
        if head == [0, 0, 0xFE, 0xFF] { return (.utf32BE, 4) }
        if head[0] == 0xFF, head[1] == 0xFE { return (.utf16LE, 2) }
        if head[0] == 0xFE, head[1] == 0xFF { return (.utf16BE, 2) }
        // Without a mark: a first character of XML or JSON (or the blank
        // before it), and its zero bytes.
        let opening: Set<UInt8> = [UInt8(ascii: "<"), UInt8(ascii: "{"), UInt8(ascii: "["), 0x20, 0x09, 0x0A, 0x0D]
        if opening.contains(head[0]), head[1] == 0, head[2] == 0, head[3] == 0 { return (.utf32LE, 0) }
        if head[0] == 0, head[1] == 0, head[2] == 0, opening.contains(head[3]) { return (.utf32BE, 0) }
        if opening.contains(head[0]), head[1] == 0, head[2] != 0, head[3] == 0 { return (.utf16LE, 0) }
        if head[0] == 0, opening.contains(head[1]), head[2] == 0, head[3] != 0 { return (.utf16BE, 0) }
        return nil
    }
}
