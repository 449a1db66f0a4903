/// How the feed plays on as a playlist: whether the next item starts when
/// one ends, whether the list (or the item) repeats, and whether the order
/// is shuffled. One type from the session to the wire.
public struct PlaylistMode: Codable, Sendable, Equatable {
    public enum Repeat: String, Codable, Sendable, CaseIterable {
        case off, one, all
    }

    /// When an audio or video item ends, the next one plays (images,
    /// invalid and text-only items are skipped).
    public var autoplay: Bool
    public var `repeat`: Repeat
    /// A random order, fixed until shuffle is turned off: every item plays
    /// once before any repeats.
    public var shuffle: Bool

    public init(autoplay: Bool = true, repeat: Repeat = .off, shuffle: Bool = false) {
        self.autoplay = autoplay
        self.repeat = `repeat`
        self.shuffle = shuffle
    }

    /// `autoplay on · repeat all · shuffle off`
    public var line: String {
        "autoplay \(autoplay ? "on" : "off") · repeat \(self.repeat.rawValue) · shuffle \(shuffle ? "on" : "off")"
    }
}
