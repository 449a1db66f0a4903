import Foundation
import MediaModel

/// A record's fields as a format's reader found them, before ids are
/// checked for duplicates and missing titles derived (`FeedDecoder.items`).
/// Every format fills one per record; a record that cannot be used keeps
/// its `problem` and becomes an invalid item, so one bad record never sinks
/// the feed.
struct FeedDraft {
    var position: Int
    var location: SourcePosition
    var explicitID: String?
    var title: String?
    var kind: MediaKind?
    var source: MediaSource?
    var description: String?
    var thumbnail: MediaSource?
    /// Seconds, as the feed states it (a probe of the file wins once made).
    var duration: Double?
    var published: Date?
    /// A podcast episode's chapters (Podlove Simple Chapters).
    var chapters: [Chapter] = []
    /// A podcast episode's Podcasting 2.0 chapters file.
    var chaptersURL: URL?
    /// Subtitle files for the item.
    var subtitles: [SubtitleLink] = []
    var problem: String?

    init(position: Int, location: SourcePosition) {
        self.position = position
        self.location = location
    }
}
