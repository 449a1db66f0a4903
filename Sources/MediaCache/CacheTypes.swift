import Foundation
import MediaCacheFolder

/// Knobs of the downloader. The defaults suit people; tests shorten the waits.
public struct CacheConfiguration: Sendable {
    /// Refuse files larger than this (bytes).
    public var maximumSize: Int64 = 4 << 30
    /// Seconds to establish a connection.
    public var connectTimeout: Int = 20
    /// Abort a transfer slower than `lowSpeedLimit` bytes/s for this many
    /// seconds: a server that trickles (20 bytes a second) is a failed try,
    /// not a download that never ends.
    public var lowSpeedTime: Int = 30
    public var lowSpeedLimit: Int = 1024
    /// Tries for 5xx answers and connection failures (a reset after progress
    /// resumes without using one).
    public var attempts: Int = 3
    /// First retry delay in seconds; it doubles each time.
    public var retryDelay: Double = 1
    /// Seconds one try may take in all (nil: no limit, as for media files).
    public var deadline: Int?
    /// Resumes after resets before giving up, however much progress each made.
    public var maximumResumes: Int = 50

    public init() {}
}

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

/// A cached entry, for `cache list`.
public struct CacheEntryInfo: Sendable, Equatable {
    public var url: String
    public var path: String
    public var status: EntryStatus
    public var contentType: String?
    public var lastAccess: Date
}
