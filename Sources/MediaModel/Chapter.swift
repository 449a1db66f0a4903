/// A chapter of an item: from the container (mp4, mkv, ogg, ID3 CHAP) or
/// from a podcast feed (Podlove Simple Chapters).
public struct Chapter: Codable, Sendable, Equatable, Hashable {
    /// Seconds from the item's start.
    public var start: Double
    public var title: String

    public init(start: Double, title: String) {
        self.start = start
        self.title = title
    }
}

/// Where playback stands among an item's chapters: `2/3 Part Two`.
public struct ChapterStatus: Codable, Sendable, Equatable {
    /// 1-based.
    public var number: Int
    public var count: Int
    public var title: String

    public init(number: Int, count: Int, title: String) {
        self.number = number
        self.count = count
        self.title = title
    }

    /// The chapter at `position` among `chapters` (sorted by start); nil
    /// before the first, or when there are none.
    public init?(at position: Double, in chapters: [Chapter]) {
        guard let index = chapters.lastIndex(where: { $0.start <= position + 0.0005 }) else { return nil }
        self.init(number: index + 1, count: chapters.count, title: chapters[index].title)
    }

    /// `2/3 Part Two`
    public var line: String { "\(number)/\(count) \(title)" }
}
