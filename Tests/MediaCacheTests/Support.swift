import Foundation
import MediaCache
import TestSupport

/// A cache in a fresh folder with short waits, and helpers to look inside it.
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

    func entryFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/cache/entries")) ?? []).sorted()
    }

    /// The data and part files only (lock files are expected to stay).
    func contentFiles() -> [String] {
        entryFiles().filter { !$0.hasSuffix(".lock") }
    }

    func partFile(for url: URL) -> String {
        folder.path + "/cache/entries/" + MediaCache.entryName(for: url) + ".part"
    }
}

func sha256(ofFile path: String) throws -> String {
    var hasher = SHA256()
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        chunk.withUnsafeBytes { hasher.update($0) }
    }
    return hasher.finalizeHex()
}

func sha256(_ bytes: [UInt8]) -> String {
    var hasher = SHA256()
    hasher.update(bytes)
    return hasher.finalizeHex()
}

/// Collects a download's events.
func events(_ stream: AsyncStream<DownloadEvent>) async -> [DownloadEvent] {
    var all: [DownloadEvent] = []
    for await event in stream { all.append(event) }
    return all
}
