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

/// A cached entry, for `cache list`.
public struct CacheEntryInfo: Sendable, Equatable {
    public var url: String
    public var path: String
    public var status: EntryStatus
    public var contentType: String?
    public var lastAccess: Date
}
