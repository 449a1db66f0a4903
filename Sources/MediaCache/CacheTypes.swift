import Foundation

/// Why a download or cache operation failed, worded for the person reading it.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an HTTP error (after retries, for 5xx).
    case http(status: Int, host: String)
    /// Connection, DNS, TLS, timeout or reset, after the retries ran out.
    case network(String)
    /// The file is larger than the size limit.
    case tooLarge(limit: Int64)
    /// More than the allowed redirects.
    case redirectLoop(host: String)
    /// The server sent a different number of bytes than it announced.
    case wrongLength(expected: Int64, received: Int64)
    /// The disk is full (or over quota); the partial download is kept.
    case diskFull(path: String)
    /// Another local I/O failure.
    case io(String)
    /// Not an http, https or file URL.
    case unsupported(String)
    /// A local file that does not exist or cannot be read.
    case missingFile(String)
    /// The caller cancelled.
    case cancelled

    public var description: String {
        switch self {
        case let .http(status, host): return "HTTP \(status) from \(host)"
        case let .network(message): return message
        case let .tooLarge(limit): return "larger than the size limit of \(Self.sizeText(limit)) (raise it with --max-size)"
        case let .redirectLoop(host): return "too many redirects (more than 5) from \(host)"
        case let .wrongLength(expected, received): return "the server sent \(received) bytes but announced \(expected)"
        case let .diskFull(path): return "no space left on the disk holding \(path) (free some space; the partial download is kept and resumes)"
        case let .io(message): return message
        case let .unsupported(message): return message
        case let .missingFile(path): return "no readable file at \(path)"
        case .cancelled: return "cancelled"
        }
    }

    static func sizeText(_ bytes: Int64) -> String {
        if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return "\(bytes) bytes"
    }
}

/// Knobs of the downloader. The defaults suit people; tests shorten the waits.
public struct CacheConfiguration: Sendable {
    /// Refuse files larger than this (bytes).
    public var maximumSize: Int64 = 4 << 30
    /// Seconds to establish a connection.
    public var connectTimeout: Int = 20
    /// Abort a transfer slower than `lowSpeedLimit` bytes/s for this many seconds.
    public var lowSpeedTime: Int = 30
    public var lowSpeedLimit: Int = 1
    /// Tries for 5xx answers and connection failures (a reset after progress
    /// resumes without using one).
    public var attempts: Int = 3
    /// First retry delay in seconds; it doubles each time.
    public var retryDelay: Double = 1
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

/// What the cache holds for a URL, as `list` shows it.
public enum EntryStatus: Sendable, Equatable {
    case notDownloaded
    /// A process (maybe another one) is downloading it now.
    case downloading(received: Int64, total: Int64?)
    /// Stopped part way; the next fetch resumes.
    case partial(received: Int64, total: Int64?)
    case cached(size: Int64)
    case failed(reason: String, received: Int64)
}

/// A cached entry, for `cache list`.
public struct CacheEntryInfo: Sendable, Equatable {
    public var url: String
    public var path: String
    public var status: EntryStatus
    public var contentType: String?
    public var lastAccess: Date
}
