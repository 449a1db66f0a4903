import CacheTestSupport
import Foundation
@testable import MediaCache
import MediaCacheFolder
import MediaInterfaces
import Testing
import TestKit

/// Servers that trickle: a download is given up on after a bounded number
/// of tries, each saying why; a one-shot fetch has a deadline in all.
@Suite(.timeLimit(.minutes(2))) struct TrickleTests {
    /// A download of `/slow.bin` trickling at 20 bytes a second, three tries
    /// of a second each: the failure, and the requests the server saw.
    static func trickle(validators: Bool) async throws -> (failure: CacheError?, requests: [TestHTTPServer.Request]) {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 100_000, seed: validators ? 42 : 41)
        if validators { server.serve("/slow.bin", bytes: bytes) } else { server.serveWithoutValidators("/slow.bin", bytes: bytes) }
        server.throttle("/slow.bin", bytesPerSecond: 20)
        let fixture = try CacheFixture {
            $0.lowSpeedTime = 1
            $0.attempts = 3
        }
        do {
            _ = try await fixture.cache.fetch(server.url("/slow.bin"))
            return (nil, server.requests("/slow.bin"))
        } catch {
            return (error, server.requests("/slow.bin"))
        }
    }

    /// No validators (each try would start from byte 0): three tries, then a
    /// failure that says why and that it gave up.
    @Test func aTricklingDownloadGivesUpAfterItsTries() async throws {
        let (failure, requests) = try await Self.trickle(validators: false)
        guard case let .network(message) = failure else { Issue.record("a network error, got \(String(describing: failure))"); return }
        #expect(message.contains("gave up after 3 tries"), "\(message)")
        #expect(message.contains("127.0.0.1"), "\(message)")
        #expect(requests.filter { $0.method == "GET" }.count == 3)
    }

    /// With validators each try resumes where the last stopped (Range), and
    /// a trickle still counts as a try.
    @Test func aTricklingDownloadResumesEachTryAndStillGivesUp() async throws {
        let (failure, requests) = try await Self.trickle(validators: true)
        #expect(failure != nil, "a trickling server's file is not called downloaded")
        #expect(requests.count == 3)
        #expect(requests.dropFirst().allSatisfy { $0.headers["range"] != nil }, "each later try resumes")
    }

    /// A feed that trickles: given up at the deadline, in a message that names the fix.
    @Test func aOneShotFetchHasADeadline() async throws {
        let server = try TestHTTPServer()
        server.serve("/feed.xml", bytes: Array(String(repeating: "<rss>", count: 400).utf8))
        server.throttle("/feed.xml", bytesPerSecond: 20)
        let url = server.url("/feed.xml")
        let outcome = await offPool { () -> Result<HTTPResponse, TransferError> in
            do throws(TransferError) { return .success(try HTTPGet.fetch(url, timeout: 2)) } catch { return .failure(error) }
        }
        guard case let .failure(error) = outcome else { Issue.record("a trickle is given up on"); return }
        #expect(error.message.contains("no whole answer within 2 s") && error.message.contains("[network] timeout"), "\(error)")
    }

    /// A download with a deadline (browse's pictures): it ends there, in one
    /// try, however the server trickles above the minimum rate.
    @Test func aDownloadWithADeadlineEndsThere() async throws {
        let server = try TestHTTPServer()
        server.serve("/cover.jpg", bytes: TestHTTPServer.bytes(count: 200_000, seed: 43))
        server.throttle("/cover.jpg", bytesPerSecond: 4096)
        let fixture = try CacheFixture { $0.lowSpeedTime = 30 }
        var failure: CacheError?
        for await event in fixture.cache.download(server.url("/cover.jpg"), deadline: 1) {
            if case let .failed(error) = event { failure = error }
        }
        guard case let .network(message) = failure else { Issue.record("a network failure, got \(String(describing: failure))"); return }
        #expect(message.lowercased().contains("timed out"), "\(message)")
        #expect(server.getCount("/cover.jpg") == 1)
    }

    /// A one-shot fetch called off from another thread while the server is
    /// silent (a UPnP page asked for ahead, no longer needed): it ends then,
    /// saying so, not at its 30 s deadline.
    @Test func aOneShotFetchCalledOffEndsThen() async throws {
        let server = try TestHTTPServer()
        server.serve("/page.xml", bytes: TestHTTPServer.bytes(count: 10_000, seed: 44))
        server.inject("/page.xml", [.hangAfter(100)])
        let url = server.url("/page.xml")
        let cancellation = TransferCancellation()
        let transfer = Task {
            await offPool { () -> Result<HTTPResponse, TransferError> in
                do throws(TransferError) { return .success(try HTTPGet.fetch(url, timeout: 30, cancellation: cancellation)) } catch { return .failure(error) }
            }
        }
        #expect(await server.waitUntilSent("/page.xml", atLeast: 100))
        cancellation.cancel()
        guard case let .failure(error) = await transfer.value else { Issue.record("a fetch called off fails"); return }
        #expect(error.message == "the transfer from 127.0.0.1 was called off", "\(error)")
    }
}
