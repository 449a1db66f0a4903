// An item's playback state as every front end reports it (status, scripts,
// the protocol, list): plain data, so that clients need none of the engine.

/// What an item is doing, as `status` and scripts see it.
public enum ItemState: String, Codable, Sendable, CaseIterable {
    case idle, downloading, playing, buffering, paused, ended, failed
}

/// One item's state, position and progress.
public struct ItemStatus: Codable, Sendable, Equatable {
    public var item: Int
    public var id: String
    public var title: String
    /// "image", "audio" or "video" (nil for an invalid record).
    public var kind: String?
    public var state: ItemState
    /// Seconds of media played (or where it will resume).
    public var position: Double
    public var duration: Double?
    /// Download progress, 0...1, while downloading with a known size; how
    /// full the buffer is while buffering.
    public var progress: Double?
    public var error: String?

    public init(
        item: Int, id: String, title: String, kind: String?, state: ItemState, position: Double,
        duration: Double? = nil, progress: Double? = nil, error: String? = nil
    ) {
        self.item = item
        self.id = id
        self.title = title
        self.kind = kind
        self.state = state
        self.position = position
        self.duration = duration
        self.progress = progress
        self.error = error
    }
}
