import Foundation
import MediaModel


/// Where an item's bytes come from.
public enum MediaSource: Sendable, Hashable, CustomStringConvertible {
    /// An http or https URL: fetched into the cache before use.
    case remote(URL)
    /// An absolute local path: used in place, never copied.
    case file(String)

    public var description: String {
        switch self {
        case let .remote(url): return url.absoluteString
        case let .file(path): return path
        }
    }

    public var isRemote: Bool {
        if case .remote = self { return true }
        return false
    }
}

/// One record of a feed, decoded: the model behind a cell in `list` and `browse`.
///
/// A record that cannot be used is still an item, with `invalidReason` set, so
/// that one bad record never sinks the feed and the user sees why.
public struct FeedItem: Sendable, Hashable, Identifiable {
    /// 1-based position in the feed: the number users type.
    public var position: Int
    /// Stable identifier: the record's `id`, else derived from its URL.
    public var id: String
    public var title: String
    public var kind: MediaKind?
    public var source: MediaSource?
    public var description: String?
    public var thumbnail: MediaSource?
    /// Why the record cannot be used; nil for a valid item.
    public var invalidReason: String?
    /// Where the record starts in the feed file.
    public var location: SourcePosition
    /// Seconds, as the feed states it (a podcast's `itunes:duration`, an
    /// M3U's `#EXTINF`); the probed file's own duration wins once known.
    public var duration: Double?
    /// The title was made from the file's name (the feed gave none): a
    /// title tag, once probed, is better.
    public var titleIsDerived = false
    /// When the feed says it was published (RSS `pubDate`, Atom, JSON Feed).
    public var published: Date?
    /// The feed's chapters for it (a podcast's Podlove Simple Chapters); the
    /// file's own are in its probed details.
    public var chapters: [Chapter] = []
    /// A podcast episode's chapters file (Podcasting 2.0), read when it plays.
    public var chaptersURL: URL?
    /// Subtitle files the feed names for it (ours: `subtitles`; JSON Feed:
    /// an attachment of type text/vtt or application/x-subrip), fetched
    /// into the cache like media when it plays.
    public var subtitles: [SubtitleLink] = []

    public var isValid: Bool { invalidReason == nil }

    /// The item's identity in every layer (see `ItemKey`).
    public var key: ItemKey { ItemKey(id) }

    public init(
        position: Int, id: String, title: String, kind: MediaKind?, source: MediaSource?,
        description: String? = nil, thumbnail: MediaSource? = nil, invalidReason: String? = nil,
        location: SourcePosition = SourcePosition(line: 1, column: 1),
        duration: Double? = nil, published: Date? = nil
    ) {
        self.position = position
        self.id = id
        self.title = title
        self.kind = kind
        self.source = source
        self.description = description
        self.thumbnail = thumbnail
        self.invalidReason = invalidReason
        self.location = location
        self.duration = duration
        self.published = published
    }
}

/// A decoded feed: its title and its items in file order.
public struct Feed: Sendable, Hashable {
    public var title: String
    public var items: [FeedItem]
    /// What reading the feed skipped, one line each (empty facts-feed rows).
    public var notes: [String] = []
    /// What was mended to read it, one phrase each (an XML feed that is not
    /// well-formed: HTML entities, undeclared prefixes, a wrong encoding);
    /// empty for a feed read as it is.
    public var repairs: [String] = []

    public init(title: String, items: [FeedItem]) {
        self.title = title
        self.items = items
    }

    /// The item a user means by `selector`: a 1-based position, else an id.
    /// A number is always read as a position, so ids made only of digits are
    /// reachable by position only.
    public func item(matching selector: String) -> FeedItem? {
        item(matching: ItemSelector(selector))
    }

    public func item(matching selector: ItemSelector) -> FeedItem? {
        switch selector {
        case let .number(position):
            // Compared before any arithmetic: a number from outside can be Int.min.
            return position >= 1 && position <= items.count ? items[position - 1] : nil
        case let .id(id):
            return items.first { $0.id == id }
        }
    }
}

/// A subtitle file a feed names for an item, and its language if said.
public struct SubtitleLink: Sendable, Hashable {
    public var source: MediaSource
    public var language: String?

    public init(source: MediaSource, language: String? = nil) {
        self.source = source
        self.language = language
    }

    /// The MIME types of subtitle files (JSON Feed attachments, Podcasting 2.0 transcripts).
    public static func isSubtitle(mime: String) -> Bool {
        ["text/vtt", "application/x-subrip", "application/srt", "text/srt", "text/x-ssa", "text/x-ass"].contains(mime.lowercased())
    }
}
