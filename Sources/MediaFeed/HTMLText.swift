/// A podcast's HTML description as plain text: tags removed, the common
/// entities decoded, paragraphs and line breaks kept as line breaks, runs
/// of white space folded. Not a browser: what a terminal shows of it.
/// (What reaches a terminal is made safe later, as every feed string is.)
enum HTMLText {
    /// Tags that end a block: a line break after them.
    private static let blockTags: Set<String> = ["p", "/p", "br", "br/", "div", "/div", "li", "/li", "ul", "/ul", "ol", "/ol", "h1", "h2", "h3", "h4", "h5", "h6", "/h1", "/h2", "/h3", "/h4", "/h5", "/h6", "blockquote", "/blockquote", "tr", "/tr"]

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "mdash": "—", "ndash": "–",
        "hellip": "…", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "copy": "©", "reg": "®", "trade": "™",
        "eacute": "é", "egrave": "è", "uuml": "ü", "ouml": "ö", "auml": "ä", "szlig": "ß", "ccedil": "ç",
    ]

    static func plain(_ html: String) -> String {
        var out = ""
        out.reserveCapacity(html.utf8.count)
        var scalars = html.unicodeScalars[...]
        var pendingSpace = false
        var pendingBreaks = 0
        func emit(_ text: String) {
            if pendingBreaks > 0, !out.isEmpty {
                out += String(repeating: "\n", count: min(pendingBreaks, 2))
            } else if pendingSpace, !out.isEmpty {
                out += " "
            }
            pendingBreaks = 0
            pendingSpace = false
            out += text
        }
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            switch scalar {
            case "<":
                // A tag, up to its ">" (a lone "<" is text).
                guard let close = scalars.firstIndex(of: ">") else {
                    emit("<")
                    continue
                }
                let inside = String(String.UnicodeScalarView(scalars[..<close])).lowercased()
                scalars = scalars[scalars.index(after: close)...]
                let name = inside.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.map(String.init) ?? ""
                if name == "p" || name == "/p" || name.hasPrefix("h") && name.count == 2 {
                    pendingBreaks = 2
                } else if blockTags.contains(name) || name.hasPrefix("br") {
                    pendingBreaks = max(pendingBreaks, 1)
                }
            case "&":
                // An entity, up to ";" within 10 characters.
                let limit = scalars.prefix(10)
                guard let semicolon = limit.firstIndex(of: ";") else {
                    emit("&")
                    continue
                }
                let name = String(String.UnicodeScalarView(scalars[..<semicolon]))
                var decoded: String?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if name.hasPrefix("#") {
                    decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                } else {
                    decoded = named[name]
                }
                if let decoded {
                    scalars = scalars[scalars.index(after: semicolon)...]
                    if decoded == " " { pendingSpace = true } else { emit(decoded) }
                } else {
                    emit("&")
                }
            case " ", "\t", "\n", "\r":
                pendingSpace = true
            default:
                emit(String(scalar))
            }
        }
        return out
    }
}
