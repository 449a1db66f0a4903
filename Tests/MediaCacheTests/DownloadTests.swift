import CacheTestSupport
import MediaCacheFolder
import Foundation
import MediaCache
import MediaInterfaces
import Testing
import TestKit

/// Downloads against the loopback server: bytes, request counts, and what is
/// left on disk.
@Suite struct DownloadTests {
    @Test func fetchesOnceAndServesFromTheCacheAfter() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 3_000_000, seed: 1)
        server.serve("/a.mp4", bytes: bytes, contentType: "video/mp4")
        let fixture = try CacheFixture()
        let url = server.url("/a.mp4")
        #expect(fixture.cache.status(for: url) == .notDownloaded)

        let path = try await fixture.cache.fetch(url)
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        #expect(path.hasSuffix(".mp4"))
        #expect(fixture.cache.status(for: url) == .cached(size: Int64(bytes.count)))

        let again = await events(fixture.cache.download(url))
        #expect(again == [.finished(path: path, alreadyCached: true)])
        #expect(server.getCount("/a.mp4") == 1)
        #expect(fixture.contentFiles() == [MediaCache.entryName(for: url)])

        // The index survives a new cache object on the same folder (a restart).
        let reopened = try MediaCache(directory: fixture.folder.path + "/cache")
        #expect(reopened.status(for: url) == .cached(size: Int64(bytes.count)))
        #expect(reopened.entries().first?.contentType == "video/mp4")
    }

    @Test func tenConcurrentFetchesMakeOneTransfer() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 2_000_000, seed: 2)
        server.serve("/same.bin", bytes: bytes)
        server.throttle("/same.bin", bytesPerSecond: 8_000_000)
        let fixture = try CacheFixture()
        let url = server.url("/same.bin")
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await fixture.cache.fetch(url) } }
            var all: [String] = []
            for try await path in group { all.append(path) }
            return all
        }
        #expect(Set(paths).count == 1)
        #expect(try await sha256(ofFile: paths[0]) == sha256(bytes))
        #expect(server.getCount("/same.bin") == 1)
    }

    @Test func progressIsPublished() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 400_000, seed: 3)
        server.serve("/p.bin", bytes: bytes)
        server.throttle("/p.bin", bytesPerSecond: 1_000_000)
        let fixture = try CacheFixture()
        let all = await events(fixture.cache.download(server.url("/p.bin")))
        let progress = all.compactMap { event -> DownloadProgress? in
            if case let .progress(progress) = event { return progress }
            return nil
        }
        let downloading = progress.filter { $0.phase == .downloading }
        #expect(downloading.count >= 3)
        #expect(downloading.allSatisfy { $0.total == Int64(bytes.count) })
        #expect(zip(downloading, downloading.dropFirst()).allSatisfy { $0.received <= $1.received })
        #expect(downloading.contains { $0.bytesPerSecond > 0 })
        if case .finished? = all.last {} else { Issue.record("the last event is finished, got \(String(describing: all.last))") }
    }

    @Test func fileURLsAreUsedInPlace() async throws {
        let fixture = try CacheFixture()
        let local = try fixture.folder.write("song.mp3", byteCount: 1000)
        let path = try await fixture.cache.fetch(URL(fileURLWithPath: local))
        #expect(path == local)
        #expect(fixture.contentFiles().isEmpty)
        await #expect(throws: CacheError.missingFile(fixture.folder.path + "/nope.mp3")) {
            try await fixture.cache.fetch(URL(fileURLWithPath: fixture.folder.path + "/nope.mp3"))
        }
    }

    /// An API's answer (a Subsonic server's error comes as HTTP 200 with an
    /// XML or JSON document) is never kept as the media; the file comes
    /// once the server sends it.
    @Test func aDocumentIsNeverKeptAsTheMedia() async throws {
        let server = try TestHTTPServer()
        let fixture = try CacheFixture()
        let url = server.url("/rest/stream.view")
        for (type, body) in [
            ("text/xml; charset=utf-8", #"<subsonic-response status="failed"><error code="40"/></subsonic-response>"#),
            ("application/json", #"{"subsonic-response": {"status": "failed", "error": {"code": 40}}}"#),
        ] {
            server.serve("/rest/stream.view", bytes: Array(body.utf8), contentType: type)
            await #expect(throws: CacheError.document(String(type.prefix { $0 != ";" }))) { try await fixture.cache.fetch(url) }
            #expect(fixture.contentFiles().isEmpty)
        }
        let bytes = TestHTTPServer.bytes(count: 10_000, seed: 3)
        server.serve("/rest/stream.view", bytes: bytes, contentType: "audio/mpeg")
        let path = try await fixture.cache.fetch(url)
        #expect(try await sha256(ofFile: path) == sha256(bytes))
    }

    @Test func onlyHTTPAndHTTPSAreFetched() async throws {
        let fixture = try CacheFixture()
        await #expect(throws: CacheError.self) {
            try await fixture.cache.fetch(URL(string: "ftp://127.0.0.1/x")!)
        }
    }

    @Test func refreshKeepsTheFileOn304AndReplacesItWhenChanged() async throws {
        let server = try TestHTTPServer()
        let first = TestHTTPServer.bytes(count: 100_000, seed: 4)
        server.serve("/r.bin", bytes: first)
        let fixture = try CacheFixture()
        let url = server.url("/r.bin")
        let path = try await fixture.cache.fetch(url)

        let unchanged = try await fixture.cache.fetch(url, refresh: true)
        #expect(unchanged == path)
        #expect(try await sha256(ofFile: path) == sha256(first))
        #expect(server.requests("/r.bin").last?.headers["if-none-match"] != nil)
        #expect(server.getCount("/r.bin") == 2)
        #expect(fixture.contentFiles() == [MediaCache.entryName(for: url)])

        let second = TestHTTPServer.bytes(count: 120_000, seed: 5)
        server.serve("/r.bin", bytes: second)
        _ = try await fixture.cache.fetch(url, refresh: true)
        #expect(try await sha256(ofFile: path) == sha256(second))
        #expect(fixture.cache.status(for: url) == .cached(size: 120_000))
        #expect(fixture.contentFiles() == [MediaCache.entryName(for: url)])
    }

    @Test func clearRemovesEntriesAndIndex() async throws {
        let server = try TestHTTPServer()
        server.serve("/1.bin", bytes: TestHTTPServer.bytes(count: 1000, seed: 6))
        server.serve("/2.bin", bytes: TestHTTPServer.bytes(count: 2000, seed: 7))
        let fixture = try CacheFixture()
        _ = try await fixture.cache.fetch(server.url("/1.bin"))
        _ = try await fixture.cache.fetch(server.url("/2.bin"))
        #expect(fixture.cache.totalSize() == 3000)
        #expect(fixture.cache.entries().count == 2)
        let result = try fixture.cache.clear()
        #expect(result.removed == 2)
        #expect(result.bytes == 3000)
        #expect(result.busy == 0)
        #expect(fixture.entryFiles().isEmpty)
        #expect(fixture.cache.entries().isEmpty)
        #expect(fixture.cache.status(for: server.url("/1.bin")) == .notDownloaded)
    }
}
