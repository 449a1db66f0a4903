import CacheTestSupport
import MediaCacheFolder
import Foundation
import MediaCache
import MediaInterfaces
import MediaModel
import Testing
import TestKit

/// Each injected fault: the error a user sees, what is left on disk, and that
/// a later fetch completes with the right bytes.
@Suite struct FaultTests {
    @Test func notFoundFailsAtOnceWithoutRetry() async throws {
        let server = try TestHTTPServer()
        let fixture = try CacheFixture()
        let url = server.url("/missing.mp3")
        await #expect(throws: CacheError.http(status: 404, host: "127.0.0.1")) { try await fixture.cache.fetch(url) }
        #expect(CacheError.http(status: 404, host: "127.0.0.1").description == "HTTP 404 from 127.0.0.1")
        #expect(server.getCount("/missing.mp3") == 1)
        #expect(fixture.cache.status(for: url) == .failed(reason: "HTTP 404 from 127.0.0.1", received: 0))
        #expect(!fixture.contentFiles().contains(MediaCache.entryName(for: url)))

        let bytes = TestHTTPServer.bytes(count: 50_000, seed: 10)
        server.serve("/missing.mp3", bytes: bytes)
        #expect(try await sha256(ofFile: try await fixture.cache.fetch(url)) == sha256(bytes))
    }

    @Test func serviceUnavailableThenSuccessRetries() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 80_000, seed: 11)
        server.serve("/busy.bin", bytes: bytes)
        server.inject("/busy.bin", [.status(503), .status(502)])
        let fixture = try CacheFixture()
        let all = await events(fixture.cache.download(server.url("/busy.bin")))
        #expect(all.contains { if case .progress(let p) = $0, case .retrying = p.phase { return true }; return false })
        guard case let .finished(path, _)? = all.last else { Issue.record("finished"); return }
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        #expect(server.getCount("/busy.bin") == 3)
    }

    /// A failed try waits its delay on the cache's clock, doubling each
    /// time: the next request goes out when the clock reaches it, not before.
    @Test(.timeLimit(.minutes(1))) func retriesWaitTheirDoublingDelayOnTheCachesClock() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 80_000, seed: 23)
        server.serve("/later.bin", bytes: bytes)
        server.inject("/later.bin", [.status(503), .status(503)])
        let clock = ManualClock()
        let fixture = try CacheFixture(clock: clock) { $0.retryDelay = 30 }
        var events = fixture.cache.download(server.url("/later.bin")).makeAsyncIterator()
        var finished: String?
        /// The next try announced (its number), or nil once the download is over.
        func nextTry() async -> Int? {
            while let event = await events.next() {
                switch event {
                case let .progress(progress):
                    if case let .retrying(attempt, _) = progress.phase { return attempt }
                case let .finished(path, _):
                    finished = path
                    return nil
                case .failed:
                    return nil
                }
            }
            return nil
        }
        for (attempt, delay) in [(2, 30.0), (3, 60.0)] {
            #expect(await nextTry() == attempt)
            // The transfer thread waits on the clock for the retry.
            await clock.waitForSleepers(1)
            #expect(server.getCount("/later.bin") == attempt - 1)
            clock.advance(by: delay - 0.1)
            #expect(clock.sleeperCount == 1, "try \(attempt) waits its \(delay) s")
            clock.advance(by: 0.1)
        }
        #expect(await nextTry() == nil)
        let path = try #require(finished)
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        #expect(server.getCount("/later.bin") == 3)
    }

    @Test func persistentServerErrorGivesUpAfterThreeTries() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 10_000, seed: 12)
        server.serve("/down.bin", bytes: bytes)
        server.inject("/down.bin", [.status(503), .status(503), .status(503)])
        let fixture = try CacheFixture()
        let url = server.url("/down.bin")
        await #expect(throws: CacheError.http(status: 503, host: "127.0.0.1")) { try await fixture.cache.fetch(url) }
        #expect(server.getCount("/down.bin") == 3)
        #expect(!fixture.contentFiles().contains(MediaCache.entryName(for: url)))
        // The server is back: the next fetch completes.
        #expect(try await sha256(ofFile: try await fixture.cache.fetch(url)) == sha256(bytes))
    }

    @Test func resetMidBodyResumesWithRangeAndIfRange() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 1_000_000, seed: 13)
        server.serve("/reset.bin", bytes: bytes)
        server.inject("/reset.bin", [.resetAfter(300_000), .resetAfter(200_000)])
        let fixture = try CacheFixture()
        let path = try await fixture.cache.fetch(server.url("/reset.bin"))
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        let requests = server.requests("/reset.bin")
        #expect(requests.count == 3)
        #expect(requests[0].headers["range"] == nil)
        for resumed in requests.dropFirst() {
            let range = try #require(resumed.headers["range"])
            #expect(range.hasPrefix("bytes="))
            #expect(Int(range.dropFirst(6).dropLast()) ?? 0 > 0)
            #expect(resumed.headers["if-range"] == requests[0].headers["if-range"] ?? resumed.headers["if-range"])
            #expect(resumed.headers["if-range"]?.hasPrefix("\"") == true)
        }
    }

    @Test func wrongLengthIsDetectedAndRepaired() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 200_000, seed: 14)
        server.serve("/short.bin", bytes: bytes)
        server.inject("/short.bin", [.wrongLength(extra: 5000)])
        let fixture = try CacheFixture()
        let url = server.url("/short.bin")
        let path = try await fixture.cache.fetch(url)
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        #expect(fixture.cache.status(for: url) == .cached(size: 200_000))
        #expect(server.getCount("/short.bin") >= 2)
    }

    @Test func persistentWrongLengthFailsAndNeverCachesACorruptFile() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 20_000, seed: 15)
        server.serve("/liar.bin", bytes: bytes)
        server.inject("/liar.bin", Array(repeating: .wrongLength(extra: 100), count: 200))
        let fixture = try CacheFixture { $0.maximumResumes = 3 }
        let url = server.url("/liar.bin")
        await #expect(throws: CacheError.self) { try await fixture.cache.fetch(url) }
        #expect(fixture.cache.cachedFile(for: url) == nil)
        if case .failed = fixture.cache.status(for: url) {} else { Issue.record("status is failed") }
    }

    @Test func connectionRefusedRetriesThenFails() async throws {
        // Port 1: nothing listens there (a port bound and closed could be
        // taken meanwhile by another suite's test server).
        let fixture = try CacheFixture()
        let url = URL(string: "http://127.0.0.1:1/file.mp3")!
        let all = await events(fixture.cache.download(url))
        let retries = all.filter { if case .progress(let p) = $0, case .retrying = p.phase { return true }; return false }
        #expect(retries.count == 2)  // three tries in all
        guard case let .failed(.network(message))? = all.last else { Issue.record("a network error, got \(String(describing: all.last))"); return }
        #expect(message.contains("127.0.0.1"))
        #expect(fixture.cache.cachedFile(for: url) == nil)
        if case .failed = fixture.cache.status(for: url) {} else { Issue.record("status is failed") }
    }

    @Test func redirectLoopFails() async throws {
        let server = try TestHTTPServer()
        server.redirect("/loop", to: "/loop")
        let fixture = try CacheFixture()
        await #expect(throws: CacheError.redirectLoop(host: "127.0.0.1")) { try await fixture.cache.fetch(server.url("/loop")) }
        #expect(server.getCount("/loop") == 6)  // the first request and five redirects
        // A finite redirect is followed.
        let bytes = TestHTTPServer.bytes(count: 1000, seed: 16)
        server.serve("/target.bin", bytes: bytes)
        server.redirect("/hop", to: "/target.bin")
        #expect(try await sha256(ofFile: try await fixture.cache.fetch(server.url("/hop"))) == sha256(bytes))
    }

    @Test func hangingServerTimesOutThenResumes() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 300_000, seed: 17)
        server.serve("/hang.bin", bytes: bytes)
        server.inject("/hang.bin", [.hangAfter(100_000)])
        let fixture = try CacheFixture { $0.lowSpeedTime = 1 }
        let path = try await fixture.cache.fetch(server.url("/hang.bin"))
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        #expect(server.requests("/hang.bin").last?.headers["range"] != nil)
    }

    @Test func hangingServerThatNeverSendsGivesUp() async throws {
        let server = try TestHTTPServer()
        server.serve("/dead.bin", bytes: TestHTTPServer.bytes(count: 1000, seed: 18))
        server.inject("/dead.bin", [.hangAfter(0), .hangAfter(0)])
        let fixture = try CacheFixture {
            $0.lowSpeedTime = 1
            $0.attempts = 2
        }
        let url = server.url("/dead.bin")
        do {
            _ = try await fixture.cache.fetch(url)
            Issue.record("a server that never answers fails")
        } catch {
            guard case let .network(message) = error else { Issue.record("network error, got \(error)"); return }
            #expect(message.contains("127.0.0.1"))
        }
    }

    @Test func fileOverTheSizeLimitIsRefusedAndRemoved() async throws {
        let server = try TestHTTPServer()
        server.serve("/huge.bin", bytes: TestHTTPServer.bytes(count: 50_000, seed: 19))
        let fixture = try CacheFixture { $0.maximumSize = 10_000 }
        let url = server.url("/huge.bin")
        await #expect(throws: CacheError.tooLarge(limit: 10_000)) { try await fixture.cache.fetch(url) }
        #expect(CacheError.tooLarge(limit: 10_000).description.contains("--max-size"))
        #expect(fixture.contentFiles().isEmpty)
        #expect(server.getCount("/huge.bin") == 1)
    }

    @Test func serverIgnoringRangeRestartsCleanly() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 500_000, seed: 20)
        server.serve("/norange.bin", bytes: bytes)
        server.inject("/norange.bin", [.resetAfter(200_000), .ignoreRange])
        let fixture = try CacheFixture()
        let path = try await fixture.cache.fetch(server.url("/norange.bin"))
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        #expect(server.getCount("/norange.bin") == 2)
    }

    @Test func changedEntityBetweenAttemptsRestartsWithTheNewOne() async throws {
        let server = try TestHTTPServer()
        let old = TestHTTPServer.bytes(count: 400_000, seed: 21)
        server.serve("/changing.bin", bytes: old)
        // The first attempt stops after 150 kB and waits there (a low-speed
        // limit long enough for a busy machine), with no timing involved.
        server.inject("/changing.bin", [.holdAfter(150_000)])
        let fixture = try CacheFixture { $0.maximumResumes = 0; $0.retryDelay = 0.05; $0.lowSpeedTime = 15 }
        let url = server.url("/changing.bin")
        let task = Task { try await fixture.cache.fetch(url) }
        #expect(await server.waitUntilSent("/changing.bin", atLeast: 150_000))
        // Replace the file, then drop the held connection: the resume's If-Range no longer matches.
        let new = TestHTTPServer.bytes(count: 350_000, seed: 22)
        server.serve("/changing.bin", bytes: new)
        server.goAway()
        server.comeBack()
        let path = try await task.value
        #expect(try await sha256(ofFile: path) == sha256(new))
        #expect(server.requests("/changing.bin").last?.headers["if-range"] != nil)
    }

    @Test func partialWithoutValidatorsRestartsFromZero() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 300_000, seed: 23)
        server.serveWithoutValidators("/plain.bin", bytes: bytes)
        server.inject("/plain.bin", [.resetAfter(100_000)])
        let fixture = try CacheFixture()
        let path = try await fixture.cache.fetch(server.url("/plain.bin"))
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        // Without a validator a resume could splice two versions: it starts over.
        #expect(server.requests("/plain.bin").allSatisfy { $0.headers["range"] == nil })
    }
}
