import MediaCacheFolder
import Foundation
import MediaCache
import TestKit

// What PartialReadTests used of MediaCacheTests' Support.swift, the same
// here (TestKit knows none of mediaplay's own modules, so it cannot hold them).

/// A cache in a fresh folder with short waits.
struct CacheFixture {
    let folder: TemporaryDirectory
    let cache: MediaCache

    init(configure: (inout CacheConfiguration) -> Void = { _ in }) throws {
        folder = try TemporaryDirectory()
        var configuration = CacheConfiguration()
        configuration.retryDelay = 0.05
        configuration.lowSpeedTime = 2
        configure(&configuration)
        cache = try MediaCache(directory: folder.path + "/cache", configuration: configuration)
    }
}

extension EntryStatus {
    /// The bytes held, whatever the state.
    var received: Int64 {
        switch self {
        case .notDownloaded: 0
        case let .downloading(received, _), let .partial(received, _), let .failed(_, received): received
        case let .cached(size): size
        }
    }
}
