import Foundation
import MediaCache
import MediaInterfaces
import Testing
import TestKit

/// A page whose pictures and sound are two files (a site's bestvideo +
/// bestaudio) is cached when both are: with the pictures alone, `list`
/// says the sound is still to come, and nothing plays from the cache.
@Suite struct KeptPageStatusTests {
    static func fetch(_ url: URL, into cache: MediaCache) async -> Bool {
        for await event in cache.download(url) {
            if case .finished = event { return true }
            if case .failed = event { return false }
        }
        return false
    }

    @Test func apartIsCachedWhenBothAre() async throws {
        let server = try TestHTTPServer()
        let pictures = TestHTTPServer.bytes(count: 30_000, seed: 1)
        let sound = TestHTTPServer.bytes(count: 20_000, seed: 2)
        server.serve("/v.mp4", bytes: pictures)
        server.serve("/a.m4a", bytes: sound)
        let folder = try TemporaryDirectory()
        let cache = try MediaCache(directory: folder.path + "/cache")
        let page = URL(string: "https://example.org/watch?v=apart")!
        cache.keep(ResolvedPage(title: "Apart", media: ResolvedMedia(url: server.url("/v.mp4")), audio: ResolvedMedia(url: server.url("/a.m4a"))), for: page)

        #expect(await Self.fetch(server.url("/v.mp4"), into: cache))
        let half = try cache.folder.snapshot()
        #expect(half.status(for: page) == .notDownloaded, "the sound is not downloaded yet")
        #expect(half.cachedFile(for: page) == nil)

        #expect(await Self.fetch(server.url("/a.m4a"), into: cache))
        let whole = try cache.folder.snapshot()
        #expect(whole.status(for: page) == .cached(size: Int64(pictures.count + sound.count)))
        #expect(whole.cachedFile(for: page) != nil)
    }
}
