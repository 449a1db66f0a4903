import MediaFeed
import MediaModel

/// The feed as a playlist: which items play on (audio and video that can be
/// played), in which order (the feed's, or a shuffled one kept until shuffle
/// is turned off), and what comes before or after an item under the modes.
/// A value with no players and no lock: `MediaSession` keeps one under its own.
public struct Playlist: Sendable, Equatable {
    public private(set) var mode: PlaylistMode
    /// The playable items in the feed's order.
    private var playable: [ItemKey]
    /// The same items shuffled (empty while shuffle is off).
    private var shuffled: [ItemKey] = []

    public init(items: [FeedItem], mode: PlaylistMode, using generator: inout some RandomNumberGenerator) {
        self.mode = mode
        playable = Self.playableKeys(items)
        if mode.shuffle { shuffled = playable.shuffled(using: &generator) }
    }

    public init(items: [FeedItem], mode: PlaylistMode) {
        var generator = SystemRandomNumberGenerator()
        self.init(items: items, mode: mode, using: &generator)
    }

    /// The items in the order they play.
    public var order: [ItemKey] { mode.shuffle ? shuffled : playable }

    /// The feed changed: items that left drop out; with shuffle, the order
    /// stays and new items join it at random places.
    public mutating func update(items: [FeedItem], using generator: inout some RandomNumberGenerator) {
        let now = Self.playableKeys(items)
        if mode.shuffle {
            let present = Set(now)
            let known = Set(shuffled)
            shuffled = shuffled.filter { present.contains($0) }
            for key in now where !known.contains(key) {
                shuffled.insert(key, at: Int.random(in: 0...shuffled.count, using: &generator))
            }
        }
        playable = now
    }

    public mutating func update(items: [FeedItem]) {
        var generator = SystemRandomNumberGenerator()
        update(items: items, using: &generator)
    }

    /// Changes the modes (nil leaves one as it is). Turning shuffle on draws
    /// a new order; turning it off forgets it.
    public mutating func set(autoplay: Bool? = nil, repeat mode: PlaylistMode.Repeat? = nil, shuffle: Bool? = nil, using generator: inout some RandomNumberGenerator) {
        if let autoplay { self.mode.autoplay = autoplay }
        if let mode { self.mode.repeat = mode }
        if let shuffle, shuffle != self.mode.shuffle {
            self.mode.shuffle = shuffle
            shuffled = shuffle ? playable.shuffled(using: &generator) : []
        }
    }

    public mutating func set(autoplay: Bool? = nil, repeat mode: PlaylistMode.Repeat? = nil, shuffle: Bool? = nil) {
        var generator = SystemRandomNumberGenerator()
        set(autoplay: autoplay, repeat: mode, shuffle: shuffle, using: &generator)
    }

    /// Where `next` (offset 1) or `previous` (-1) goes from `current`: the
    /// neighbour in the order; past an end, round when repeating all; with
    /// nothing current (or something outside the order), the first or last.
    public func step(from current: ItemKey?, by offset: Int) -> ItemKey? {
        let order = self.order
        guard !order.isEmpty else { return nil }
        guard let current, let at = order.firstIndex(of: current) else { return offset > 0 ? order.first : order.last }
        let index = at + offset
        if order.indices.contains(index) { return order[index] }
        return mode.repeat == .all ? order[((index % order.count) + order.count) % order.count] : nil
    }

    /// What autoplay plays when `item` ends: itself under repeat one, the
    /// next in the order, the first again under repeat all; nothing when
    /// autoplay is off or the item does not play on (a picture).
    public func successor(after item: FeedItem) -> ItemKey? {
        guard mode.autoplay, Self.playsOn(item) else { return nil }
        if mode.repeat == .one { return item.key }
        let order = self.order
        guard let at = order.firstIndex(of: item.key) else { return nil }
        if at + 1 < order.count { return order[at + 1] }
        return mode.repeat == .all ? order.first : nil
    }

    /// Audio and video with media: what a playlist plays on through.
    static func playsOn(_ item: FeedItem) -> Bool {
        item.kind == .audio || item.kind == .video
    }

    private static func playableKeys(_ items: [FeedItem]) -> [ItemKey] {
        items.filter { $0.isValid && $0.source != nil && playsOn($0) }.map(\.key)
    }
}
