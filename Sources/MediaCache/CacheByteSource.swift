import MediaInterfaces


/// A cache entry, downloading or not, is a byte source the engine plays
/// from (a live stream too): the cache and the engine share only
/// MediaInterfaces' protocol.
extension CacheReader: ByteSource {
    /// A download: a far seek reads from its estimate at once (the cache
    /// asks the server for that range) rather than waiting for the bytes before.
    public var seeksByEstimate: Bool { true }
}
extension LiveStream: LiveByteSource {}
