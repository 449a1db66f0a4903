/// Bytes the engine reads media from when they are not simply a file: a
/// cache entry that is still downloading, say. Reads may block (the engine
/// calls them from its reader thread only).
public protocol ByteSource: AnyObject, Sendable {
    /// A name for messages, and a hint for format probing (its extension).
    var name: String { get }
    /// Called with true when a read starts waiting for bytes that are not
    /// there yet, and with false when it stops waiting.
    var onWait: (@Sendable (Bool) -> Void)? { get set }
    /// The total size, if known; may wait for it.
    func size() throws -> Int64?
    /// Reads up to `buffer.count` bytes at `offset`, waiting until at least
    /// one is there; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// Ends every wait, now and later, with an error (playback stops; the
    /// player flags its stop first, so that error is not taken for a failure).
    func interrupt()
    /// A stream with no end (internet radio): read in order only, never
    /// sought; it has no length.
    var isLive: Bool { get }
    /// Bytes that come over a link (a download in progress): a seek far
    /// ahead is made from an estimate (an MP3's table of contents or its
    /// bit rate) and read from there at once (the cache asks for that
    /// range), instead of a scan from the start that waits for every byte
    /// before it.
    var seeksByEstimate: Bool { get }
}

extension ByteSource {
    public var isLive: Bool { false }
    public var seeksByEstimate: Bool { false }
}

/// A live stream's bytes (internet radio), and what it hears besides them:
/// the title playing now, and what is being done about a drop.
public protocol LiveByteSource: ByteSource {
    var onTitle: (@Sendable (String) -> Void)? { get set }
    var onNotice: (@Sendable (String?) -> Void)? { get set }
}
