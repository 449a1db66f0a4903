import CXML

/// A podcast's HTML description as plain text: tags removed, the common
/// entities decoded, paragraphs and line breaks kept as line breaks, runs
/// of white space folded. Not a browser: what a terminal shows of it.
/// (What reaches a terminal is made safe later, as every feed string is.)
/// Read as UTF-8 bytes: a 5,000-episode feed has megabytes of notes.
enum HTMLText {
    /// Tags after which a line ends (a paragraph or a heading: an empty
    /// line), as their lowercased name's bytes packed in a number (a tag
    /// name is looked up with no allocation).
    private static let lineTags: Set<UInt64> = Set(["br", "div", "/div", "li", "/li", "ul", "/ul", "ol", "/ol", "blockquote", "/blockquote", "tr", "/tr"].map { packed(Array($0.utf8)[...]) })
    private static let paragraphTags: Set<UInt64> = Set(["p", "/p", "h1", "h2", "h3", "h4", "h5", "h6", "/h1", "/h2", "/h3", "/h4", "/h5", "/h6"].map { packed(Array($0.utf8)[...]) })

    /// Up to 8 bytes, lowercased, as one number; longer names are 0 (no tag of ours).
    private static func packed<C: Collection<UInt8>>(_ name: C) -> UInt64 {
        guard name.count <= 8 else { return name.count <= 11 ? packedLong(name) : 0 }
        var value: UInt64 = 0
        for byte in name { value = value << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        return value
    }

    /// "blockquote" and "/blockquote": the last 7 bytes, the length on top.
    private static func packedLong<C: Collection<UInt8>>(_ name: C) -> UInt64 {
        var value: UInt64 = 0
        for byte in name.suffix(7) { value = value << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        return value | UInt64(name.count) << 60
    }

    private static let named: [[UInt8]: [UInt8]] = Dictionary(uniqueKeysWithValues: [
        ("amp", "&"), ("lt", "<"), ("gt", ">"), ("quot", "\""), ("apos", "'"), ("nbsp", " "), ("mdash", "—"), ("ndash", "–"),
        ("hellip", "…"), ("rsquo", "’"), ("lsquo", "‘"), ("rdquo", "”"), ("ldquo", "“"), ("copy", "©"), ("reg", "®"), ("trade", "™"),
        ("eacute", "é"), ("egrave", "è"), ("uuml", "ü"), ("ouml", "ö"), ("auml", "ä"), ("szlig", "ß"), ("ccedil", "ç"),
    ].map { (Array($0.0.utf8), Array($0.1.utf8)) })

    static func plain(_ html: String) -> String {
        var html = html
        return html.withUTF8 { plain(bytes: $0) }
    }

    private static func plain(bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var pendingSpace = false
        var pendingBreaks = 0
        func emit(_ piece: some Collection<UInt8>) {
            if pendingBreaks > 0, !out.isEmpty {
                out.append(contentsOf: repeatElement(UInt8(ascii: "\n"), count: min(pendingBreaks, 2)))
            } else if pendingSpace, !out.isEmpty {
                out.append(UInt8(ascii: " "))
            }
            pendingBreaks = 0
            pendingSpace = false
            out.append(contentsOf: piece)
        }
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "<"):
                // A tag, up to its ">" (a lone "<" is text).
                var close = index + 1
                while close < count, bytes[close] != UInt8(ascii: ">") { close += 1 }
                guard close < count else {
                    emit(CollectionOfOne(byte))
                    index += 1
                    continue
                }
                var nameEnd = index + 1
                while nameEnd < close, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/")].contains(bytes[nameEnd]) || (nameEnd == index + 1 && bytes[nameEnd] == UInt8(ascii: "/")) {
                    nameEnd += 1
                }
                let name = packed(bytes[(index + 1)..<nameEnd])
                if paragraphTags.contains(name) {
                    pendingBreaks = 2
                } else if lineTags.contains(name) {
                    pendingBreaks = max(pendingBreaks, 1)
                }
                index = close + 1
            case UInt8(ascii: "&"):
                // An entity, up to ";" within 10 bytes.
                var semicolon = index + 1
                while semicolon < min(count, index + 11), bytes[semicolon] != UInt8(ascii: ";") { semicolon += 1 }
                guard semicolon < count, bytes[semicolon] == UInt8(ascii: ";"), let decoded = entity(bytes[(index + 1)..<semicolon]) else {
                    emit(CollectionOfOne(byte))
                    index += 1
                    continue
                }
                if decoded == [0x20] { pendingSpace = true } else { emit(decoded) }
                index = semicolon + 1
            case 0x20, 0x09, 0x0A, 0x0D:
                pendingSpace = true
                index += 1
            default:
                // A run of ordinary bytes at once.
                var end = index + 1
                while end < count, ![UInt8(ascii: "<"), UInt8(ascii: "&"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[end]) { end += 1 }
                emit(bytes[index..<end])
                index = end
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func entity(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8]? {
        guard let first = name.first else { return nil }
        if first == UInt8(ascii: "#") {
            let digits = name.dropFirst()
            let hex = digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X")
            let text = String(decoding: hex ? digits.dropFirst() : digits, as: UTF8.self)
            guard let value = UInt32(text, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(value), value != 0 else { return nil }
            return Array(String(scalar).utf8)
        }
        if let known = named[Array(name)] { return known }
        // The rest of HTML's entities, from libxml2's table (loaded by then for an XML feed).
        guard name.count <= 32, name.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) }) else { return nil }
        let value = mp_xml_html_entity(String(decoding: name, as: UTF8.self))
        guard value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return Array(String(scalar).utf8)
    }

    /// Whether a title means HTML (feedparser's rule): it has a closing tag
    /// or an entity reference; "a < b" or "R&D" is text as written.
    static func looksLikeHTML(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(looksLikeHTML(bytes:))
    }

    private static func looksLikeHTML(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"), isLetter(bytes[index + 2]) {
                var end = index + 2
                while end < bytes.count, isLetter(bytes[end]) || (bytes[end] >= 0x30 && bytes[end] <= 0x39) { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: ">") { return true }
            } else if byte == UInt8(ascii: "&") {
                var end = index + 1
                if end < bytes.count, bytes[end] == UInt8(ascii: "#") { end += 1 }
                let start = end
                while end < bytes.count, end - start < 32, isLetter(bytes[end]) || (bytes[end] >= 0x30 && bytes[end] <= 0x39) { end += 1 }
                if end > start, end < bytes.count, bytes[end] == UInt8(ascii: ";") { return true }
            }
            index += 1
        }
        return false
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
    }

    /// Text made HTML that reads back as itself (`&`, `<`, `>` escaped).
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Runs of white space as one space, none at the ends.
    static func folded(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
