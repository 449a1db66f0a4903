import MediaCacheFolder
import Foundation
import MediaCache
import MediaInterfaces
import MediaModel
import TestKit

/// A cache in a fresh folder with short waits, and helpers to look inside it
/// (for the cache's tests and the real-time partial reads).
/// Its retries wait on `clock`: a test that moves them hands it a `ManualClock`.
public struct CacheFixture: Sendable {
    public let folder: TemporaryDirectory
    public let cache: MediaCache

    public init(clock: any MediaClock = SystemClock.shared, configure: (inout CacheConfiguration) -> Void = { _ in }) throws {
        folder = try TemporaryDirectory()
        var configuration = CacheConfiguration()
        configuration.retryDelay = 0.05
        configuration.lowSpeedTime = 2
        configure(&configuration)
        cache = try MediaCache(directory: folder.path + "/cache", configuration: configuration, clock: clock)
    }

    public func entryFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/cache/entries")) ?? []).sorted()
    }

    /// The data and part files only (lock files are expected to stay).
    public func contentFiles() -> [String] {
        entryFiles().filter { !$0.hasSuffix(".lock") }
    }

    public func partFile(for url: URL) -> String {
        folder.path + "/cache/entries/" + MediaCache.entryName(for: url) + ".part"
    }
}

/// Collects a download's events.
public func events(_ stream: AsyncStream<DownloadEvent>) async -> [DownloadEvent] {
    var all: [DownloadEvent] = []
    for await event in stream { all.append(event) }
    return all
}

extension EntryStatus {
    /// The bytes held, whatever the state.
    public var received: Int64 {
        switch self {
        case .notDownloaded: 0
        case let .downloading(received, _), let .partial(received, _), let .failed(_, received): received
        case let .cached(size): size
        }
    }
}
