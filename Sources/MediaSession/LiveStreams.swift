import MediaModel

/// The items playing a live stream (internet radio, no length): the
/// now-playing line its ICY metadata last gave, and any notice (a drop, a
/// reconnect). A value the session holds under its lock; the stream's own
/// thread reports through the session.
struct LiveStreams: Sendable {
    struct Info: Sendable, Equatable {
        var title: String?
        var notice: String?
    }

    private var items: [ItemKey: Info] = [:]

    func isLive(_ key: ItemKey) -> Bool { items[key] != nil }

    func info(_ key: ItemKey) -> Info? { items[key] }

    /// A player starts for `key`: from a live stream or not (what it
    /// played before is forgotten either way).
    mutating func started(_ key: ItemKey, live: Bool) {
        items[key] = live ? Info() : nil
    }

    /// A new title: the notice was about the one before. False when `key`
    /// plays no live stream (a stream left behind by another start).
    mutating func title(_ title: String, for key: ItemKey) -> Bool {
        guard items[key] != nil else { return false }
        items[key] = Info(title: title)
        return true
    }

    /// A notice said (nil: the one shown is over). False as for `title`.
    mutating func notice(_ notice: String?, for key: ItemKey) -> Bool {
        guard items[key] != nil else { return false }
        items[key]?.notice = notice
        return true
    }
}
