import Foundation
import MediaFeed
import MediaModel
import MediaState
import MediaplayCommon

/// What this user has done with a feed's items, as `list` shows it: played
/// (✓, by media URL) and new (•, by id), from the state database shared by
/// every command. Read once; a state folder that cannot be used marks nothing.
public struct ItemMarks: Sendable {
    public var played: Set<String>
    public var fresh: Set<String>

    public init(played: Set<String> = [], fresh: Set<String> = []) {
        self.played = played
        self.fresh = fresh
    }

    /// The marks of `loaded`'s items (reading it counts as a read: items
    /// seen for the first time become new, as `list` makes them).
    public static func read(_ loaded: LoadedFeed, global: GlobalOptions) -> ItemMarks {
        guard let state = try? StateStore(path: BackgroundPlayer.stateDirectory(global) + "/positions.sqlite") else { return ItemMarks() }
        let fresh = (try? state.newItems(in: loaded.identity, ids: loaded.feed.items.map(\.id))) ?? []
        return ItemMarks(played: state.playedURLs(), fresh: fresh)
    }

    public func isPlayed(_ item: FeedItem) -> Bool {
        item.source.map { played.contains($0.description) } ?? false
    }

    /// The items with media not played yet (the new ones among them),
    /// newest first; those the feed gives no date after, in its order
    /// (`fetch --new`).
    public func unplayedNewestFirst(_ items: [FeedItem]) -> [FeedItem] {
        let unplayed = items.enumerated().filter { $0.element.isValid && $0.element.source != nil && !isPlayed($0.element) }
        return unplayed.sorted { a, b in
            switch (a.element.published, b.element.published) {
            case let (x?, y?): return x != y ? x > y : a.offset < b.offset
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element)
    }
}
