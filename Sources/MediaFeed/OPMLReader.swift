import Foundation

/// An OPML subscription list, the file every podcast client exports: each
/// `<outline>` with an `xmlUrl`, at any depth (folders nest them).
public enum OPMLReader {
    public struct Subscription: Sendable, Equatable {
        public var title: String
        public var url: String
        /// Why it is not to be imported (nil: an http(s) URL).
        public var problem: String? { OPMLReader.problem(with: url) }
    }

    /// Why `url` is no feed to subscribe to, or nil for an http(s) URL with
    /// a host. A subscription list comes from elsewhere: a path, `file:`,
    /// `data:` or an option-like word would have `feeds` read this
    /// computer's files, or pass for an option.
    public static func problem(with url: String) -> String? {
        if url.isEmpty { return "an empty URL" }
        if url.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F..<0xA0).contains($0.value) }) {
            return "a URL with spaces or control characters"
        }
        if url.hasPrefix("-") { return "looks like a command-line option, not an http(s) URL" }
        let scheme = url.prefix { $0 != ":" }
        let isScheme = scheme.count < url.count && scheme.first?.isLetter == true && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        guard isScheme else { return "a path, not an http(s) URL" }
        switch scheme.lowercased() {
        case "http", "https":
            guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return "an http(s) URL without a host" }
            return nil
        case "file": return "a file on this computer (file:), not an http(s) URL"
        default: return "a \(scheme): URL, not an http(s) one"
        }
    }

    public static func subscriptions(_ bytes: [UInt8]) throws(FeedError) -> [Subscription] {
        let text = try UnicodeText.utf8(bytes)
        let stream = try XMLStream(text.bytes, ignoringDeclaredEncoding: text.transcodedFrom != nil)
        guard let root = try stream.root(), root.name == "opml" else {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "not an OPML file (its root is not <opml>)")
        }
        var found: [Subscription] = []
        while let section = try stream.next(atDepth: 1) {
            guard section.name == "body" else { continue }
            // Depth first, in document order.
            var pending = section.children.reversed() as [XMLElement]
            while let outline = pending.popLast() {
                guard outline.name == "outline" else { continue }
                if let url = outline.attribute("xmlUrl") {
                    let title = outline.attribute("title") ?? outline.attribute("text") ?? url
                    found.append(Subscription(title: title, url: url))
                }
                pending.append(contentsOf: outline.children.reversed())
            }
        }
        return found
    }
}
