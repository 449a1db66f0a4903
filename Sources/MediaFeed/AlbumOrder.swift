import Foundation

/// A folder feed's albums in their tagged order: within each folder whose
/// media files all carry a track number, the files play by disc, then
/// track (as MPD and cmus order an album), in the places the folder's files
/// held in path order. A folder with an untagged file keeps path order,
/// so a half-tagged folder does not scatter. Items are numbered again;
/// their ids (from their paths) stay.
public enum AlbumOrder {
    /// `details`: one per item, as probed (nil: not known).
    public static func apply(to feed: Feed, details: [MediaDetails?]) -> (feed: Feed, details: [MediaDetails?]) {
        precondition(details.count == feed.items.count)
        // The items of each folder, by their places in the feed.
        var folders: [String: [Int]] = [:]
        for (index, item) in feed.items.enumerated() {
            guard case let .file(path)? = item.source, let slash = path.lastIndex(of: "/") else { continue }
            folders[String(path[..<slash]), default: []].append(index)
        }
        var order = Array(feed.items.indices)
        var changed = false
        for places in folders.values where places.count > 1 {
            let numbered = places.allSatisfy { feed.items[$0].kind == .image || details[$0]?.track != nil }
            guard numbered else { continue }
            let sorted = places.sorted { a, b in
                // Pictures (no track) after the tracks, in path order.
                func key(_ index: Int) -> (Int, Int) {
                    guard let details = details[index], let track = details.track else { return (Int.max, Int.max) }
                    return (details.disc ?? 1, track)
                }
                let x = key(a), y = key(b)
                return x != y ? x < y : a < b
            }
            if sorted != places { changed = true }
            for (place, index) in zip(places, sorted) { order[place] = index }
        }
        guard changed else { return (feed, details) }
        var result = feed
        result.items = order.enumerated().map { place, index in
            var item = feed.items[index]
            item.position = place + 1
            return item
        }
        return (result, order.map { details[$0] })
    }
}

extension Feed {
    /// A file's title tag for each item whose title was made from its file
    /// name (`details`: one per item, as probed).
    public mutating func takeTitles(from details: [MediaDetails?]) {
        for index in items.indices where items[index].titleIsDerived {
            guard let tag = details[index]?.title?.trimmingCharacters(in: .whitespacesAndNewlines), !tag.isEmpty else { continue }
            items[index].title = tag
            items[index].titleIsDerived = false
        }
    }
}
