import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel

/// The chapters of the items played: the feed's own (a podcast's), else a
/// Podcasting 2.0 chapters file the feed names (read once, through the
/// store, as the episode first plays), else the media file's. A value the
/// session holds under its lock; the fetch itself runs off it.
struct ChapterBook: Sendable {
    /// The chapters files read, by item; an empty list while one is being
    /// read or when it could not be had (it is not asked for again).
    private var fetched: [ItemKey: [Chapter]] = [:]

    /// What a chapters file gave, or why it gave nothing (for the log).
    enum Fetched: Sendable, Equatable {
        case chapters([Chapter])
        case problem(String)
    }

    /// The item's chapters; `inFile` are its media file's (nil: not open).
    func chapters(of item: FeedItem, inFile: [Chapter]?) -> [Chapter] {
        if !item.chapters.isEmpty { return item.chapters }
        if let file = fetched[item.key], !file.isEmpty { return file }
        return inFile ?? []
    }

    /// The chapters file to read for `item`, claimed once: nil when the
    /// feed gives its chapters, names no file, or it was claimed before.
    mutating func claim(_ item: FeedItem) -> URL? {
        guard item.chapters.isEmpty, let url = item.chaptersURL, fetched[item.key] == nil else { return nil }
        fetched[item.key] = []
        return url
    }

    /// A chapters file read for `key`.
    mutating func record(_ chapters: [Chapter], for key: ItemKey) {
        fetched[key] = chapters
    }

    /// Reads `item`'s chapters file through the store (the cache's one-shot
    /// fetch, or a test's fake), or through `documents` (the same fetch)
    /// when no store is open. Blocks: run it off Swift's cooperative pool.
    static func fetch(_ url: URL, of item: FeedItem, from store: (any MediaStore)?, or documents: (any DocumentFetcher)? = nil) -> Fetched {
        let body: [UInt8]
        do throws(TransferError) {
            if let store {
                body = try store.fetchDocument(url, maximumBytes: PodcastChapters.maximumBytes)
            } else if let documents {
                // No cache open (a session of local media): the same one-shot fetch.
                body = try documents.fetchDocument(url, maximumBytes: PodcastChapters.maximumBytes)
            } else {
                return .problem("chapters of \"\(item.title)\" not fetched: this session reads nothing from the network")
            }
        } catch {
            return .problem("chapters of \"\(item.title)\" not fetched: \(error.message)")
        }
        guard let chapters = PodcastChapters.decode(body), !chapters.isEmpty else {
            return .problem("chapters of \"\(item.title)\" not read: \(url.absoluteString.redactingUserinfo) holds no chapters in the Podcasting 2.0 JSON form")
        }
        return .chapters(chapters)
    }

    /// Where `chapter next|prev|N` goes among `chapters` from `position`:
    /// a chapter's start. `prev` more than two seconds into a chapter goes
    /// to its own start, as a player's previous-track key does.
    static func target(_ step: PlayerCommand.ChapterStep, in chapters: [Chapter], at position: Double) throws(CommandError) -> Double {
        guard !chapters.isEmpty else { throw CommandError(.badRequest, "the current item has no chapters") }
        let here = ChapterStatus(at: position, in: chapters).map { $0.number - 1 }
        let index: Int
        switch step {
        case .next:
            let next = (here ?? -1) + 1
            guard next < chapters.count else { throw CommandError(.noSuchItem, "already in the last chapter (\(chapters.count) of \(chapters.count))") }
            index = next
        case .previous:
            guard let here else { return 0 }
            index = position - chapters[here].start > 2 ? here : max(0, here - 1)
        case let .number(number):
            guard (1...chapters.count).contains(number) else {
                throw CommandError(.noSuchItem, "no chapter \(number): the item has \(chapters.count) (1–\(chapters.count))")
            }
            index = number - 1
        }
        return chapters[index].start
    }
}
