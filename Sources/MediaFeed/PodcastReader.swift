import Foundation
import MediaModel
import MediaTerminal

/// Podcasts and news feeds in XML: RSS 2.0 (with the iTunes and content
/// namespaces, and Media RSS) and Atom. Each `<item>` or `<entry>` is an
/// item; its enclosure is the media, and one without is words only.
enum PodcastReader {
    enum Namespace {
        static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
        static let content = "http://purl.org/rss/1.0/modules/content/"
        static let atom = "http://www.w3.org/2005/Atom"
        static let media = "http://search.yahoo.com/mrss/"
        /// Podlove Simple Chapters.
        static let chapters = "http://podlove.org/simple-chapters"
        /// Podcasting 2.0.
        static let podcast = "https://podcastindex.org/namespace/1.0"
    }

    /// `transcoded`: the bytes are UTF-8 made from UTF-16 or UTF-32, whatever
    /// the document's declaration says.
    static func decode(_ bytes: [UInt8], origin: FeedOrigin, transcoded: Bool = false) throws(FeedError) -> Feed {
        let stream = try XMLStream(bytes, ignoringDeclaredEncoding: transcoded)
        guard let root = try stream.root() else {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "an XML document without an element")
        }
        switch (root.name, root.namespace) {
        case ("rss", nil):
            return try rss(stream, origin: origin)
        case ("feed", Namespace.atom?):
            return try atom(stream, origin: origin)
        case ("opml", _):
            throw FeedError(position: SourcePosition(line: root.line, column: 1), message: "an OPML list of subscriptions, not a feed (pass one of its feeds' URLs to --feed)")
        default:
            throw FeedError(position: SourcePosition(line: root.line, column: 1), message: "an XML document whose root is <\(root.name)>, not RSS's <rss> or Atom's <feed>; \(FeedFormat.readable)")
        }
    }

    // MARK: - RSS 2.0

    /// The channel's children, one at a time: its title and image, and its items.
    private static func rss(_ stream: XMLStream, origin: FeedOrigin) throws(FeedError) -> Feed {
        var title: String?
        var channelImage: String?
        var drafts: [FeedDraft] = []
        var sawChannel = false
        while let child = try stream.next(atDepth: 2) {
            guard let parent = child.parent, parent.is("channel", in: nil) else { continue }
            sawChannel = true
            switch (child.name, child.namespace) {
            case ("title", nil): title = child.text
            case ("image", Namespace.itunes?): channelImage = channelImage ?? child.attribute("href")
            case ("image", nil): channelImage = channelImage ?? child.children.first { $0.is("url", in: nil) }?.text
            case ("item", nil):
                try checkCount(drafts.count + 1, line: child.line)
                drafts.append(rssItem(child, position: drafts.count + 1, origin: origin))
            default: break
            }
        }
        guard sawChannel else {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "the RSS feed has no <channel>")
        }
        // The channel's image is known only once read (it may follow items).
        return feed(title: title, drafts: drafts, image: channelImage, origin: origin)
    }

    private static func rssItem(_ element: XMLElement, position: Int, origin: FeedOrigin) -> FeedDraft {
        var draft = FeedDraft(position: position, location: SourcePosition(line: element.line, column: 1))
        var problems: [String] = []
        var enclosure: (url: String, type: String?)?
        var mediaContent: (url: String, type: String?)?
        var image: String?
        var description: String?
        var encoded: String?
        for child in element.children {
            switch (child.name, child.namespace) {
            case ("title", nil): draft.title = child.text
            case ("guid", nil): draft.explicitID = child.text
            case ("enclosure", nil):
                if enclosure == nil, let url = child.attribute("url") { enclosure = (url, child.attribute("type")) }
            case ("content", Namespace.media?):
                if mediaContent == nil, let url = child.attribute("url") { mediaContent = (url, child.attribute("type")) }
            case ("pubDate", nil): draft.published = child.text.flatMap(FeedDates.rfc822)
            case ("duration", Namespace.itunes?): draft.duration = child.text.flatMap(duration)
            case ("image", Namespace.itunes?): image = image ?? child.attribute("href")
            case ("thumbnail", Namespace.media?): image = image ?? child.attribute("url")
            case ("description", nil): description = child.text
            case ("encoded", Namespace.content?): encoded = child.text
            case ("summary", Namespace.itunes?): description = description ?? child.text
            case ("chapters", Namespace.chapters?): draft.chapters = chapters(child)
            case ("chapters", Namespace.podcast?):
                // Fetched when the episode plays; only http(s), as any URL a feed gives.
                var base: URL?
                if case let .remote(feedURL) = origin { base = feedURL }
                if let text = child.attribute("url"), let url = URL(string: text, relativeTo: base)?.absoluteURL,
                   ["http", "https"].contains(url.scheme?.lowercased() ?? "") { draft.chaptersURL = url }
            case ("transcript", Namespace.podcast?):
                // A timed transcript (WebVTT, SubRip) shows as the episode's subtitles.
                var base: URL?
                if case let .remote(feedURL) = origin { base = feedURL }
                if let type = child.attribute("type"), SubtitleLink.isSubtitle(mime: type),
                   let text = child.attribute("url"), let url = URL(string: text, relativeTo: base)?.absoluteURL,
                   ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                    let language = child.attribute("language").map { DisplayWidth.singleLine($0).lowercased() }
                    draft.subtitles.append(SubtitleLink(source: .remote(url), language: language.flatMap { $0.isEmpty ? nil : $0 }))
                }
            default: break
            }
        }
        draft.description = (encoded ?? description).map(HTMLText.plain).flatMap { $0.isEmpty ? nil : $0 }
        if let media = enclosure ?? mediaContent {
            fill(&draft, url: media.url, type: media.type, image: image, origin: origin, problems: &problems)
        }
        // An id from the enclosure when there is no guid (FeedDecoder derives it from the URL).
        draft.problem = problems.first
        return draft
    }

    // MARK: - Atom

    private static func atom(_ stream: XMLStream, origin: FeedOrigin) throws(FeedError) -> Feed {
        var title: String?
        var logo: String?
        var drafts: [FeedDraft] = []
        while let child = try stream.next(atDepth: 1) {
            guard child.namespace == Namespace.atom else { continue }
            switch child.name {
            case "title": title = child.text
            case "logo", "icon": logo = logo ?? child.text
            case "entry":
                try checkCount(drafts.count + 1, line: child.line)
                drafts.append(atomEntry(child, position: drafts.count + 1, origin: origin))
            default: break
            }
        }
        return feed(title: title, drafts: drafts, image: logo, origin: origin)
    }

    private static func atomEntry(_ element: XMLElement, position: Int, origin: FeedOrigin) -> FeedDraft {
        var draft = FeedDraft(position: position, location: SourcePosition(line: element.line, column: 1))
        var problems: [String] = []
        var enclosure: (url: String, type: String?)?
        var image: String?
        var summary: String?
        var content: String?
        for child in element.children {
            switch (child.name, child.namespace) {
            case ("title", Namespace.atom?): draft.title = child.text.map(HTMLText.plain)
            case ("id", Namespace.atom?): draft.explicitID = child.text
            case ("link", Namespace.atom?):
                if child.attribute("rel") == "enclosure", enclosure == nil, let href = child.attribute("href") {
                    enclosure = (href, child.attribute("type"))
                }
            case ("published", Namespace.atom?): draft.published = child.text.flatMap(FeedDates.rfc3339)
            case ("updated", Namespace.atom?): draft.published = draft.published ?? child.text.flatMap(FeedDates.rfc3339)
            case ("summary", Namespace.atom?): summary = child.text
            case ("content", Namespace.atom?): content = child.text
            case ("duration", Namespace.itunes?): draft.duration = child.text.flatMap(duration)
            case ("image", Namespace.itunes?): image = image ?? child.attribute("href")
            case ("thumbnail", Namespace.media?): image = image ?? child.attribute("url")
            default: break
            }
        }
        draft.description = (content ?? summary).map(HTMLText.plain).flatMap { $0.isEmpty ? nil : $0 }
        if let enclosure {
            fill(&draft, url: enclosure.url, type: enclosure.type, image: image, origin: origin, problems: &problems)
        }
        draft.problem = problems.first
        return draft
    }

    // MARK: - Shared

    /// The feed, its image the thumbnail of the media items that have none.
    private static func feed(title: String?, drafts: [FeedDraft], image: String?, origin: FeedOrigin) -> Feed {
        var drafts = drafts
        if let image, case let .success(source) = FeedDecoder.resolve(image, origin: origin) {
            for index in drafts.indices where drafts[index].thumbnail == nil && drafts[index].source != nil && drafts[index].kind != .image {
                drafts[index].thumbnail = source
            }
        }
        return Feed(title: title ?? origin.fallbackTitle, items: FeedDecoder.items(from: drafts))
    }

    /// The media of an item: its source, its kind (from the MIME type, else
    /// the URL's extension) and its thumbnail.
    private static func fill(_ draft: inout FeedDraft, url: String, type: String?, image: String?, origin: FeedOrigin, problems: inout [String]) {
        switch FeedDecoder.resolve(url, origin: origin) {
        case let .success(source):
            draft.source = source
            draft.kind = MediaKind.guess(mime: type, url: source)
            if draft.kind == nil {
                problems.append("enclosure \(type.map { "of type \($0)" } ?? "without a type") is not audio, video or an image")
            }
        case let .failure(problem):
            problems.append("enclosure url: \(problem.message)")
        }
        if let image, draft.kind != .image, case let .success(source) = FeedDecoder.resolve(image, origin: origin) {
            draft.thumbnail = source
        }
    }

    /// `<psc:chapters>`: each `<psc:chapter start="00:01:30.500" title="…"/>`,
    /// in order of start; one without a readable start is left out.
    static func chapters(_ element: XMLElement) -> [Chapter] {
        let found = element.children.compactMap { child -> Chapter? in
            guard child.name == "chapter", child.namespace == Namespace.chapters,
                  let text = child.attribute("start"), let start = CheckedNumber.time(PlayerCommand.seconds(text) ?? Double(text)) else { return nil }
            let title = child.attribute("title")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return Chapter(start: start, title: title.isEmpty ? "Chapter" : title)
        }
        return Array(found.sorted { $0.start < $1.start }.prefix(10_000))
    }

    /// `itunes:duration`: seconds, MM:SS or HH:MM:SS.
    static func duration(_ text: String) -> Double? {
        CheckedNumber.duration(PlayerCommand.seconds(text) ?? Double(text))
    }

    private static func checkCount(_ count: Int, line: Int) throws(FeedError) {
        if count > FeedDecoder.maximumItems {
            throw FeedError(position: SourcePosition(line: line, column: 1), message: "more than \(FeedDecoder.maximumItems) items; is it really a feed?")
        }
    }
}
