/// What a download is doing, as published to its subscribers.
public struct DownloadProgress: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Waiting for another process that downloads the same entry.
        case waiting
        case connecting
        case downloading
        /// A failed try; another follows after a pause.
        case retrying(attempt: Int, reason: String)
    }

    public var phase: Phase
    /// Bytes in the entry so far, resumed bytes included.
    public var received: Int64
    /// The full size, when the server said.
    public var total: Int64?
    /// Recent transfer rate in bytes per second.
    public var bytesPerSecond: Double

    public init(phase: Phase, received: Int64, total: Int64?, bytesPerSecond: Double) {
        self.phase = phase
        self.received = received
        self.total = total
        self.bytesPerSecond = bytesPerSecond
    }

    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(received) / Double(total))
    }
}

/// One event of a download, in order: progress any number of times, then
/// exactly one of `finished` or `failed`.
public enum DownloadEvent: Sendable, Equatable {
    case progress(DownloadProgress)
    /// The verified file, and whether it was already cached (no transfer).
    case finished(path: String, alreadyCached: Bool)
    case failed(CacheError)
}
