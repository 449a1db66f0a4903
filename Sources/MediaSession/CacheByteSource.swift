import MediaCache
import MediaEngine

/// A cache entry, downloading or not, is a byte source the engine plays
/// from (a live stream too); the two modules stay unaware of each other.
extension CacheReader: ByteSource {}
extension LiveStream: ByteSource {}
