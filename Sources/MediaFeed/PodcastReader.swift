import CXML
import Foundation
import MediaModel
import MediaTerminal

/// Podcasts and news feeds in XML: RSS 2.0 and 0.9x (with the iTunes,
/// content, Dublin Core and Media RSS namespaces), RSS 1.0 and 0.90 (RDF),
/// and Atom 1.0 and 0.3. Each `<item>` or `<entry>` is an item; its
/// enclosure is the media, and one without is words only. What real feeds
/// get wrong is mended and said (`XMLRecovery`).
enum PodcastReader {
    enum Namespace {
        static let atom = "http://www.w3.org/2005/Atom"
        /// Podlove Simple Chapters (for `chapters(_:)`).
        static let chapters = "http://podlove.org/simple-chapters"
    }

    /// `transcoded`: the bytes are UTF-8 made from UTF-16 or UTF-32, whatever
    /// the document's declaration says.
    static func decode(_ bytes: [UInt8], origin: FeedOrigin, transcoded: Bool = false) throws(FeedError) -> Feed {
        try XMLRecovery.read(bytes, transcoded: transcoded) { stream throws(FeedError) in try read(stream, origin: origin) }
    }

    private static func read(_ stream: XMLStream, origin: FeedOrigin) throws(FeedError) -> Feed {
        guard let root = try stream.root() else {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "an XML document without an element")
        }
        let kind = root.kind
        let position = SourcePosition(line: root.line, column: 1)
        switch root.name {
        case "rss" where kind == .none || kind == .rss || kind == .other:
            return try rss(stream, core: Core(root), origin: origin)
        case "RDF" where kind == .rdf:
            return try rdf(stream, origin: origin)
        case "feed" where kind == .atom || kind == .atom03 || kind == .none:
            return try atom(stream, origin: origin)
        case "opml":
            throw FeedError(position: position, message: "an OPML list of subscriptions, not a feed (pass one of its feeds' URLs to --feed)")
        case "feed":
            let namespace = DisplayWidth.singleLine(root.namespace ?? "")
            throw FeedError(position: position, message: "an XML document whose root is <feed> in the namespace \(namespace), not Atom's (\(Namespace.atom) or 0.3's http://purl.org/atom/ns#); \(FeedFormat.readable)")
        default:
            throw FeedError(position: position, message: "an XML document whose root is <\(DisplayWidth.singleLine(root.name))>, not RSS's <rss> or <rdf:RDF>, or Atom's <feed>; \(FeedFormat.readable)")
        }
    }

    /// RSS's own elements: in no namespace, in RSS 1.0's (or 0.90's, or
    /// UserLand's), or in the namespace the root `<rss>` is in.
    struct Core {
        let namespace: String?

        init(_ root: XMLElement) {
            namespace = root.kind == .other ? root.namespace : nil
        }

        init() { namespace = nil }

        func contains(_ element: XMLElement) -> Bool {
            switch element.kind {
            case .none, .rss: return true
            case .other: return namespace != nil && element.namespace == namespace
            default: return false
            }
        }
    }

    // MARK: - RSS 2.0 and 0.9x

    /// The channel's children, one at a time: its title and image, and its items.
    private static func rss(_ stream: XMLStream, core: Core, origin: FeedOrigin) throws(FeedError) -> Feed {
        var channel = ChannelFields()
        let drafts = DraftPipeline(origin: origin)
        defer { drafts.stop() }
        var sawChannel = false
        while let child = try stream.next(atDepth: 2) {
            guard let parent = child.parent, parent.named("channel"), core.contains(parent) else { continue }
            sawChannel = true
            if core.contains(child), child.named("item") {
                try checkCount(drafts.count + 1, line: child.line)
                drafts.add(rssItem(child, position: drafts.count + 1, core: core, origin: origin))
            } else {
                channel.read(child, core: core)
            }
        }
        guard sawChannel else {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "the RSS feed has no <channel>")
        }
        // The channel's image is known only once read (it may follow items).
        return feed(title: channel.title, drafts: drafts.finish(), image: channel.image, origin: origin)
    }

    // MARK: - RSS 1.0 and 0.90 (RDF)

    /// `<rdf:RDF>`: the channel, its image and the items beside it.
    private static func rdf(_ stream: XMLStream, origin: FeedOrigin) throws(FeedError) -> Feed {
        let core = Core()
        var channel = ChannelFields()
        let drafts = DraftPipeline(origin: origin)
        defer { drafts.stop() }
        var sawChannel = false
        while let child = try stream.next(atDepth: 1) {
            guard core.contains(child) else { continue }
            switch child.name {
            case "channel":
                sawChannel = true
                for field in child.children { channel.read(field, core: core) }
            case "image":
                channel.image = channel.image ?? child.children.first { core.contains($0) && $0.named("url") }?.text
            case "item":
                try checkCount(drafts.count + 1, line: child.line)
                drafts.add(rssItem(child, position: drafts.count + 1, core: core, origin: origin))
            default: break
            }
        }
        guard sawChannel || drafts.count > 0 else {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "the RSS 1.0 feed has no <channel> and no <item>")
        }
        return feed(title: channel.title, drafts: drafts.finish(), image: channel.image, origin: origin)
    }

    /// A channel's title and image, from RSS's elements or the namespaces'.
    private struct ChannelFields {
        var ownTitle: String?
        var dcTitle: String?
        var image: String?
        var title: String? { ownTitle ?? dcTitle }

        mutating func read(_ child: XMLElement, core: Core) {
            switch child.kind {
            case .itunes where child.named("image"), .googleplay where child.named("image"):
                image = image ?? child.attribute("href")
            case .dc where child.named("title"):
                dcTitle = dcTitle ?? child.text.map(PodcastReader.plainTitle)
            case _ where core.contains(child):
                if child.named("title") {
                    ownTitle = child.text.map(PodcastReader.plainTitle)
                } else if child.named("image") {
                    image = image ?? child.children.first { core.contains($0) && $0.named("url") }?.text
                }
            default: break
            }
        }
    }

    private static func rssItem(_ element: XMLElement, position: Int, core: Core, origin: FeedOrigin) -> ItemFields {
        var fields = ItemFields(position: position, line: element.line)
        // RSS 1.0: the item's URI is its id (feedparser's too), unless a guid says otherwise.
        fields.aboutID = element.attribute("about")
        // Names compared in place (no String per element: a feed has tens of thousands).
        element.forEachChild { child in
            if core.contains(child) {
                if child.named("title") {
                    // Made plain on the other thread (`draft`).
                    fields.rssTitle = child.text
                } else if child.named("guid") {
                    fields.id = child.text
                } else if child.named("enclosure") {
                    if let url = child.attribute("url") ?? child.attribute("resource") {
                        fields.enclosures.append(Media(url: url, type: child.attribute("type"), medium: nil))
                    }
                } else if child.named("pubDate") {
                    fields.published.offer(child.text)
                } else if child.named("description") {
                    fields.description = child.text
                }
            } else {
                fields.read(child, origin: origin)
            }
        }
        return fields
    }

    // MARK: - Atom 1.0 and 0.3

    private static func atom(_ stream: XMLStream, origin: FeedOrigin) throws(FeedError) -> Feed {
        var title: String?
        var dcTitle: String?
        var logo: String?
        let drafts = DraftPipeline(origin: origin)
        defer { drafts.stop() }
        while let child = try stream.next(atDepth: 1) {
            switch child.kind {
            case .atom, .atom03, .none:
                switch child.name {
                case "title": title = atomText(child)
                case "logo", "icon": logo = logo ?? child.text
                case "entry":
                    try checkCount(drafts.count + 1, line: child.line)
                    drafts.add(atomEntry(child, position: drafts.count + 1, origin: origin))
                default: break
                }
            case .itunes where child.named("image"): logo = logo ?? child.attribute("href")
            case .dc where child.named("title"): dcTitle = dcTitle ?? child.text.map(plainTitle)
            default: break
            }
        }
        return feed(title: title ?? dcTitle, drafts: drafts.finish(), image: logo, origin: origin)
    }

    private static func atomEntry(_ element: XMLElement, position: Int, origin: FeedOrigin) -> ItemFields {
        var fields = ItemFields(position: position, line: element.line)
        for child in element.children {
            switch child.kind {
            case .atom, .atom03, .none:
                switch child.name {
                case "title": fields.title = atomText(child)
                case "id": fields.id = child.text
                case "link":
                    if child.attribute("rel")?.lowercased() == "enclosure", let href = child.attribute("href") {
                        fields.enclosures.append(Media(url: href, type: child.attribute("type"), medium: nil))
                    }
                // Atom 1.0's published and updated; 0.3's issued, modified and created.
                case "published", "issued": fields.published.offer(child.text)
                case "updated", "modified": fields.updated.offer(child.text)
                case "created": fields.created.offer(child.text)
                case "summary": fields.summary = atomText(child, html: true)
                case "content": fields.description = atomText(child, html: true)
                default: break
                }
            default:
                fields.read(child, origin: origin)
            }
        }
        return fields
    }

    /// An Atom text construct as plain text: `type="text"` as written,
    /// `html` (0.3's `mode="escaped"`) without its markup, `xhtml` its text;
    /// 0.3's `mode="base64"` decoded first. Nil for other types (a picture in
    /// base64). `html`: the text kept as HTML (a description is made plain later).
    static func atomText(_ element: XMLElement, html keepHTML: Bool = false) -> String? {
        let type = element.attribute("type")?.lowercased() ?? "text"
        let mode = element.attribute("mode")?.lowercased()
        guard var text = element.text else { return nil }
        if mode == "base64" {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return nil }
            text = String(decoding: data, as: UTF8.self)
        }
        switch type {
        case "html", "text/html":
            return keepHTML ? text : nonEmpty(HTMLText.plain(text))
        case "xhtml", "application/xhtml+xml":
            // The text of the markup, already without it: an escaped `<` in it is a character.
            return keepHTML && mode != "escaped" ? HTMLText.escaped(text) : nonEmpty(mode == "escaped" ? HTMLText.plain(text) : HTMLText.folded(text))
        case "text", "text/plain":
            if mode == "escaped" { return keepHTML ? text : nonEmpty(HTMLText.plain(text)) }
            return keepHTML ? HTMLText.escaped(text) : text.trimmedOfWhitespace
        default:
            return type.hasPrefix("text/") ? text : nil
        }
    }

    private static func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }

    /// An RSS title as text: markup taken out and entities decoded when it
    /// looks like HTML (a closing tag or an entity, feedparser's rule), else as written.
    static func plainTitle(_ text: String) -> String {
        HTMLText.looksLikeHTML(text) ? HTMLText.plain(text) : text
    }

    // MARK: - What RSS and Atom share

    struct Media: Sendable {
        var url: String
        var type: String?
        /// Media RSS's `medium` (`audio`, `video`, `image`), when the type does not say.
        var medium: String?
        var isDefault = false
        var duration: Double?
    }

    /// The first readable date of those an item gives in one role
    /// (feedparser's rule): the first kept as text and read in `draft`, on
    /// the other thread, unless a second one comes and it must be read here.
    struct FirstDate: Sendable {
        private var read: Date?
        private var pending: String?

        mutating func offer(_ text: String?) {
            guard read == nil, let text else { return }
            guard let first = pending else {
                pending = text
                return
            }
            read = FeedDates.parse(first)
            pending = read == nil ? text : nil
        }

        var date: Date? { read ?? pending.flatMap(FeedDates.parse) }
    }

    /// An item's fields as read, in RSS or Atom, before one is chosen.
    struct ItemFields: Sendable {
        var draft: FeedDraft
        var title: String?
        /// RSS's title as written (HTML in it is taken out in `draft`).
        var rssTitle: String?
        var dcTitle: String?
        var id: String?
        var aboutID: String?
        var enclosures: [Media] = []
        var mediaContents: [Media] = []
        /// feedparser's three dates: published (RSS `pubDate`, Atom
        /// `published`, `dcterms:issued`), updated (`dc:date`,
        /// `dcterms:modified`, Atom `updated`) and created; the first there is the item's.
        var published = FirstDate()
        var updated = FirstDate()
        var created = FirstDate()
        var duration: Double?
        var image: String?
        var description: String?
        var encoded: String?
        var summary: String?

        init(position: Int, line: Int) {
            draft = FeedDraft(position: position, location: SourcePosition(line: line, column: 1))
        }

        /// An element of a namespace both formats use.
        mutating func read(_ child: XMLElement, origin: FeedOrigin) {
            switch child.kind {
            case .itunes:
                if child.named("duration") { duration = duration ?? child.text.flatMap(PodcastReader.duration) }
                else if child.named("image") { image = image ?? child.attribute("href") }
                else if child.named("summary") { summary = summary ?? child.text }
            case .googleplay:
                if child.named("image") { image = image ?? child.attribute("href") }
                else if child.named("description") { summary = summary ?? child.text }
            case .media:
                readMedia(child)
            case .content where child.named("encoded"):
                encoded = child.text
            case .dc:
                if child.named("title") { dcTitle = dcTitle ?? child.text.map(PodcastReader.plainTitle) }
                else if child.named("date") { updated.offer(child.text) }
                else if child.named("description") { summary = summary ?? child.text }
            case .dcterms:
                if child.named("issued") { published.offer(child.text) }
                else if child.named("modified") { updated.offer(child.text) }
                else if child.named("created") { created.offer(child.text) }
            case .enclosure where child.named("enclosure"):
                if let url = child.attribute("resource") ?? child.attribute("url") {
                    enclosures.append(Media(url: url, type: child.attribute("type"), medium: nil))
                }
            case .chapters where child.named("chapters"):
                draft.chapters = PodcastReader.chapters(child)
            case .podcast:
                var base: URL?
                if case let .remote(feedURL) = origin { base = feedURL }
                if child.named("chapters") {
                    // Fetched when the episode plays; only http(s), as any URL a feed gives.
                    if let text = child.attribute("url"), let url = URL(string: text, relativeTo: base)?.absoluteURL,
                       ["http", "https"].contains(url.scheme?.lowercased() ?? "") { draft.chaptersURL = url }
                } else if child.named("transcript") {
                    // A timed transcript (WebVTT, SubRip) shows as the episode's subtitles.
                    if let type = child.attribute("type"), SubtitleLink.isSubtitle(mime: type),
                       let text = child.attribute("url"), let url = URL(string: text, relativeTo: base)?.absoluteURL,
                       ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                        let language = child.attribute("language").map { DisplayWidth.singleLine($0).lowercased() }
                        draft.subtitles.append(SubtitleLink(source: .remote(url), language: language.flatMap { $0.isEmpty ? nil : $0 }))
                    }
                }
            default: break
            }
        }

        /// Media RSS: `media:content`, `media:thumbnail`, and a `media:group` of them.
        private mutating func readMedia(_ child: XMLElement) {
            switch child.name {
            case "content":
                if let url = child.attribute("url") {
                    let seconds = child.attribute("duration").flatMap { CheckedNumber.duration(Double($0)) }
                    mediaContents.append(Media(url: url, type: child.attribute("type"), medium: child.attribute("medium"), isDefault: child.attribute("isDefault") == "true", duration: seconds))
                }
            case "thumbnail": image = image ?? child.attribute("url")
            case "description": summary = summary ?? child.text
            case "group":
                for member in child.children where member.kind == .media { readMedia(member) }
            default: break
            }
        }

        /// The draft: the enclosure, else the Media RSS content that is the
        /// default (else the first playable, else the first).
        func draft(origin: FeedOrigin) -> FeedDraft {
            var draft = self.draft
            var problems: [String] = []
            draft.title = title ?? rssTitle.map(PodcastReader.plainTitle) ?? dcTitle
            draft.explicitID = id ?? aboutID
            draft.published = published.date ?? updated.date ?? created.date
            let playable = mediaContents.first { $0.isDefault } ?? mediaContents.first { PodcastReader.kind(of: $0) != nil } ?? mediaContents.first
            let media = enclosures.first ?? playable
            draft.duration = duration ?? media?.duration
            draft.description = (encoded ?? description ?? summary).map(HTMLText.plain).flatMap { $0.isEmpty ? nil : $0 }
            if let media {
                PodcastReader.fill(&draft, media: media, image: image, origin: origin, problems: &problems)
            }
            draft.problem = problems.first
            return draft
        }
    }

    static func kind(of media: Media) -> MediaKind? {
        if let type = media.type, let kind = MediaKind.guess(fromMIME: type) { return kind }
        switch media.medium?.lowercased() {
        case "audio": return .audio
        case "video": return .video
        case "image": return .image
        default: return nil
        }
    }

    /// The feed, its image the thumbnail of the media items that have none.
    private static func feed(title: String?, drafts: consuming [FeedDraft], image: String?, origin: FeedOrigin) -> Feed {
        if let image, case let .success(source) = FeedDecoder.resolve(image, origin: origin) {
            for index in drafts.indices where drafts[index].thumbnail == nil && drafts[index].source != nil && drafts[index].kind != .image {
                drafts[index].thumbnail = source
            }
        }
        return Feed(title: title ?? origin.fallbackTitle, items: FeedDecoder.items(from: drafts))
    }

    /// The media of an item: its source, its kind (from the MIME type, else
    /// Media RSS's medium, else the URL's extension) and its thumbnail.
    private static func fill(_ draft: inout FeedDraft, media: Media, image: String?, origin: FeedOrigin, problems: inout [String]) {
        switch FeedDecoder.resolve(media.url, origin: origin) {
        case let .success(source):
            draft.source = source
            draft.kind = kind(of: media) ?? MediaKind.guess(mime: nil, url: source)
            if draft.kind == nil {
                problems.append("enclosure \(media.type.map { "of type \($0)" } ?? "without a type") is not audio, video or an image")
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
            guard child.is("chapter", .chapters),
                  let text = child.attribute("start"), let start = CheckedNumber.time(PlayerCommand.seconds(text) ?? Double(text)) else { return nil }
            let title = child.attribute("title")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return Chapter(start: start, title: title.isEmpty ? "Chapter" : title)
        }
        return Array(found.sorted { $0.start < $1.start }.prefix(10_000))
    }

    /// `itunes:duration`: seconds, MM:SS or HH:MM:SS.
    static func duration(_ text: String) -> Double? {
        if let whole = wholeSeconds(text) { return whole.flatMap { CheckedNumber.duration($0) } }
        return CheckedNumber.duration(PlayerCommand.seconds(text) ?? Double(text))
    }

    /// The common case read in place: whole numbers between colons
    /// ("3600", "59:59", "1:02:03"), with the rules of `PlayerCommand.seconds`
    /// (at most three parts, minutes and seconds under 60, at most a week);
    /// `.some(nil)` when such a text breaks them. Nil for any other text
    /// (fractions, spaces), which the general readers take.
    private static func wholeSeconds(_ text: String) -> Double?? {
        var text = text
        return text.withUTF8 { bytes -> Double?? in
            guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
            var total = 0
            var part = 0
            var digits = 0
            var parts = 1
            for byte in bytes {
                if byte == UInt8(ascii: ":") {
                    guard digits > 0 else { return nil }
                    guard parts == 1 || part < 60 else { return .some(nil) }
                    total = total * 60 + part
                    (part, digits, parts) = (0, 0, parts + 1)
                } else if byte >= 0x30, byte <= 0x39 {
                    guard digits < 9 else { return nil }
                    part = part * 10 + Int(byte - 0x30)
                    digits += 1
                } else {
                    return nil
                }
            }
            guard digits > 0 else { return nil }
            guard parts <= 3, parts == 1 || part < 60 else { return .some(nil) }
            total = total * 60 + part
            // One number alone is read as a number, a week or not.
            return .some(parts == 1 || total <= 7 * 24 * 3600 ? Double(total) : nil)
        }
    }

    private static func checkCount(_ count: Int, line: Int) throws(FeedError) {
        if count > FeedDecoder.maximumItems {
            throw FeedError(position: SourcePosition(line: line, column: 1), message: "more than \(FeedDecoder.maximumItems) items; is it really a feed?")
        }
    }
}
