import MediaCache
import MediaEngine

/// A cache entry, downloading or not, is a byte source the engine plays
/// from (a live stream too); the two modules stay unaware of each other.
extension CacheReader: ByteSource {
    /// A download: a far seek reads from its estimate at once (the cache
    /// asks the server for that range) rather than waiting for the bytes before.
    public var seeksByEstimate: Bool { true }
}
extension LiveStream: ByteSource {}
