import Foundation

/// An OPML subscription list, the file every podcast client exports: each
/// `<outline>` with an `xmlUrl`, at any depth (folders nest them).
public enum OPMLReader {
    public struct Subscription: Sendable, Equatable {
        public var title: String
        public var url: String
    }

    public static func subscriptions(_ bytes: [UInt8]) throws(FeedError) -> [Subscription] {
        let stream = try XMLStream(bytes)
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
