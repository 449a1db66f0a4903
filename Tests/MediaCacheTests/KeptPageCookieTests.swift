import Foundation
import MediaCache
import MediaInterfaces
import Testing
import TestKit

/// A page's resolution is kept in the cache's index, its cookies never
/// (a session's cookies in plain text on disk): read back, it says it
/// lacks them, so that playing it asks yt-dlp again.
@Suite struct KeptPageCookieTests {
    @Test func aKeptPageHoldsNoCookie() throws {
        let folder = try TemporaryDirectory()
        let cache = try MediaCache(directory: folder.path + "/cache")
        let page = URL(string: "https://example.org/watch?v=1")!
        let media = ResolvedMedia(url: URL(string: "https://cdn.example.org/v.mp4")!, headers: ["Cookie": "session=SECRET-COOKIE-1", "Referer": "https://example.org/"])
        cache.keep(ResolvedPage(title: "Harbour", media: media), for: page)

        let kept = try #require(cache.keptPage(for: page))
        #expect(kept.title == "Harbour")
        #expect(kept.media.headers == ["Referer": "https://example.org/"])
        #expect(kept.lacksCookies)
        // Kept again as it was read, it still says so.
        cache.keep(kept, for: page)
        #expect(cache.keptPage(for: page)?.lacksCookies == true)
        // Nowhere in the cache's folder (the index, its journal).
        let files = FileManager.default.enumerator(atPath: folder.path + "/cache")?.compactMap { $0 as? String } ?? []
        for name in files {
            guard let bytes = FileManager.default.contents(atPath: folder.path + "/cache/" + name) else { continue }
            #expect(bytes.range(of: Data("SECRET-COOKIE".utf8)) == nil, "\(name)")
        }
        // A page without cookies is kept whole.
        let plain = URL(string: "https://example.org/watch?v=2")!
        cache.keep(ResolvedPage(title: "Plain", media: ResolvedMedia(url: URL(string: "https://cdn.example.org/w.mp4")!)), for: plain)
        #expect(cache.keptPage(for: plain)?.lacksCookies == false)
    }
}
