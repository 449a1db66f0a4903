import MediaModel

/// Whole-file downloads under way (a picture is shown whole, so it
/// downloads first): the fraction received per item, when the size is
/// known. A value the session holds under its lock.
struct Downloads: Sendable {
    private var progress: [ItemKey: Double?] = [:]

    /// The item's download: nil when none runs, `.some(nil)` when its size is unknown.
    subscript(key: ItemKey) -> Double?? { progress[key] }

    var keys: Dictionary<ItemKey, Double?>.Keys { progress.keys }

    /// How `key`'s download went; returns what to announce (nil: nothing).
    mutating func went(_ download: ItemStarter.Download, for key: ItemKey) -> ItemEvent.Kind? {
        switch download {
        case .began:
            progress[key] = .some(nil)
            return .state
        case let .progress(fraction):
            progress[key] = .some(fraction)
            return .progress
        case .ended:
            // The start goes on and says what it reaches.
            progress[key] = nil
            return nil
        }
    }

    /// Forgets the items `keep` says no to (gone from the feed).
    mutating func keep(where keep: (ItemKey) -> Bool) {
        progress = progress.filter { keep($0.key) }
    }
}
