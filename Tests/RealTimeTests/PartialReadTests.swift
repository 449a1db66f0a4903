import CacheTestSupport
import MediaCacheFolder
import Foundation
import MediaCache
import MediaInterfaces
import Testing
import TestKit

/// Reading an entry while it downloads: bytes come as they arrive, a read
/// far ahead starts a ranged transfer, and the entry still completes as one
/// verified file with no byte fetched twice.
@Suite struct PartialReadTests {
    /// Reads `count` bytes at `offset` on a thread of its own (reads block).
    static func read(_ reader: CacheReader, at offset: Int64, count: Int) async throws -> [UInt8] {
        try await offPool {
            var result = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let got = try result.withUnsafeMutableBytes { raw in
                    try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]), at: offset + Int64(done))
                }
                if got == 0 { break }
                done += got
            }
            return Array(result[0..<done])
        }
    }

    /// A held response must not look like a stalled link (the fixture's
    /// low-speed limit is 2 s): a busy test machine may take longer. 15 s
    /// also bounds a test whose reset went astray.
    static func fixture() throws -> CacheFixture {
        try CacheFixture { $0.lowSpeedTime = 15 }
    }

    @Test func readsWhileDownloadingWithOneTransfer() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 600_000, seed: 40)
        server.serve("/slow.bin", bytes: bytes)
        // The server sends 100 kB, then holds the rest until released.
        server.inject("/slow.bin", [.holdAfter(100_000)])
        let fixture = try Self.fixture()
        let url = server.url("/slow.bin")
        let reader = try fixture.cache.open(url)
        #expect(!reader.wasComplete)
        #expect(try reader.size() == 600_000)

        let first = try await Self.read(reader, at: 0, count: 20_000)
        #expect(first == Array(bytes[0..<20_000]))
        #expect(fixture.cache.cachedFile(for: url) == nil)

        server.release("/slow.bin")
        let all = try await Self.read(reader, at: 0, count: 700_000)
        #expect(all == bytes)
        let path = try await fixture.cache.fetch(url)
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        #expect(server.getCount("/slow.bin") == 1)
        #expect(server.bytesSent("/slow.bin") == bytes.count)
    }

    @Test func readFarAheadStartsARangedTransferAndNothingIsFetchedTwice() async throws {
        let server = try TestHTTPServer()
        let size = 2_000_000
        let bytes = TestHTTPServer.bytes(count: size, seed: 41)
        server.serve("/seek.bin", bytes: bytes)
        server.throttle("/seek.bin", bytesPerSecond: 1_000_000)
        server.inject("/seek.bin", [.holdAfter(200_000)])
        let fixture = try Self.fixture()
        let url = server.url("/seek.bin")
        let reader = try fixture.cache.open(url)
        _ = try reader.size()

        // An MP4 index at the end: read the last 100 kB first.
        let tail = try await Self.read(reader, at: Int64(size - 100_000), count: 100_000)
        #expect(tail == Array(bytes[(size - 100_000)...]))
        let ranged = server.requests("/seek.bin").filter { $0.headers["range"] == "bytes=\(size - 100_000)-" }
        #expect(ranged.count == 1)
        #expect(ranged.first?.headers["if-range"] != nil)

        // A seek to the middle while the main transfer is held far behind.
        let middle = try await Self.read(reader, at: 1_000_000, count: 10_000)
        #expect(middle == Array(bytes[1_000_000..<1_010_000]))
        guard case let .downloading(received, total) = fixture.cache.status(for: url) else {
            Issue.record("expected a download in progress, got \(fixture.cache.status(for: url))")
            return
        }
        // The index lists what the sparse part file holds, not its size.
        #expect(received > 0 && received < Int64(size))
        #expect(total == Int64(size))

        server.release("/seek.bin")
        let all = try await Self.read(reader, at: 0, count: size)
        #expect(all == bytes)
        let path = try await fixture.cache.fetch(url)
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        // Transfers stopped where another began: every byte written once.
        #expect(reader.bytesFetched == Int64(size), "\(server.requests("/seek.bin").map { $0.headers["range"] ?? "whole" })")
        #expect(server.getCount("/seek.bin") <= 5)
    }

    /// A ranged transfer that ends without the bytes (a 503 here) is asked
    /// for again; the reader does not wait for the held main transfer.
    @Test func aFailedRangedTransferIsAskedForAgain() async throws {
        let server = try TestHTTPServer()
        let size = 2_000_000
        let bytes = TestHTTPServer.bytes(count: size, seed: 45)
        server.serve("/again.bin", bytes: bytes)
        // The main transfer holds at 200 kB; the first ranged one gets a 503.
        server.inject("/again.bin", [.holdAfter(200_000), .status(503)])
        let fixture = try Self.fixture()
        let url = server.url("/again.bin")
        let reader = try fixture.cache.open(url)
        _ = try reader.size()
        let tail = try await Self.read(reader, at: Int64(size - 100_000), count: 100_000)
        #expect(tail == Array(bytes[(size - 100_000)...]))
        let ranged = server.requests("/again.bin").filter { $0.headers["range"] == "bytes=\(size - 100_000)-" }
        #expect(ranged.count == 2, "asked, refused, asked again")
        server.release("/again.bin")
        #expect(try await sha256(ofFile: try await fixture.cache.fetch(url)) == sha256(bytes))
    }

    @Test func aResetMidStreamResumesAndTheReaderGetsEveryByte() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 800_000, seed: 42)
        server.serve("/reset.bin", bytes: bytes)
        server.throttle("/reset.bin", bytesPerSecond: 800_000)
        server.inject("/reset.bin", [.resetAfter(300_000)])
        let fixture = try Self.fixture()
        let url = server.url("/reset.bin")
        let reader = try fixture.cache.open(url)
        let all = try await Self.read(reader, at: 0, count: bytes.count)
        #expect(all == bytes)
        let requests = server.requests("/reset.bin")
        #expect(requests.count == 2)
        #expect(requests.last?.headers["range"].map { $0.hasPrefix("bytes=") && $0 != "bytes=0-" } == true)
    }

    @Test func aServerGoneForGoodFailsTheReadAndLeavesAResumablePart() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 500_000, seed: 43)
        server.serve("/gone.bin", bytes: bytes)
        server.inject("/gone.bin", [.holdAfter(200_000)])
        let fixture = try Self.fixture()
        let url = server.url("/gone.bin")
        let reader = try fixture.cache.open(url)
        let head = try await Self.read(reader, at: 0, count: 100_000)
        #expect(head == Array(bytes[0..<100_000]))
        // The server goes away: the open connection drops, new ones are reset.
        server.goAway()
        await #expect(throws: CacheError.self) { _ = try await Self.read(reader, at: 0, count: bytes.count) }
        guard case let .failed(reason, received) = fixture.cache.status(for: url) else {
            Issue.record("expected a failed entry, got \(fixture.cache.status(for: url))")
            return
        }
        #expect(reason.contains("127.0.0.1"), "\(reason)")
        #expect(received >= 100_000 && received <= 200_000)

        // The server is back: the next fetch resumes where the part file ends.
        server.comeBack()
        let before = server.requests("/gone.bin").count
        #expect(try await sha256(ofFile: try await fixture.cache.fetch(url)) == sha256(bytes))
        #expect(server.requests("/gone.bin").dropFirst(before).first?.headers["range"] == "bytes=\(received)-")
    }

    /// A part file with separate ranges keeps what it holds across a stop
    /// (quit, or another process's kill): the index follows the ranged
    /// transfer as it writes, the stop records the last bytes, and the next
    /// fetch asks only for the gaps.
    @Test func separateRangesSurviveAStopAndOnlyTheGapsAreFetchedAgain() async throws {
        let server = try TestHTTPServer()
        let size = 2_000_000
        let bytes = TestHTTPServer.bytes(count: size, seed: 46)
        server.serve("/gaps.bin", bytes: bytes)
        server.throttle("/gaps.bin", bytesPerSecond: 300_000)
        server.inject("/gaps.bin", [.holdAfter(100_000)])
        let fixture = try Self.fixture()
        let url = server.url("/gaps.bin")
        let reader = try fixture.cache.open(url)
        _ = try reader.size()
        // A seek near the end: a ranged transfer from 1.5 MB goes on past the read.
        let seek = try await Self.read(reader, at: 1_500_000, count: 10_000)
        #expect(seek == Array(bytes[1_500_000..<1_510_000]))
        let atSeek = fixture.cache.status(for: url).received
        // list (here: status) sees the ranged transfer's progress while it
        // runs: looked at again at each write to the entries' folder.
        let grew = try await Wait.until(changesAt: fixture.folder.path + "/cache/entries") {
            fixture.cache.status(for: url).received >= atSeek + 300_000
        }
        let later = fixture.cache.status(for: url).received
        #expect(grew, "held \(atSeek) at the seek, \(later) at last")

        fixture.cache.cancel(url)
        reader.interrupt()
        // Wait for the stop to be recorded (the entry lock is released).
        let deadline = ContinuousClock.now + .seconds(10)
        while case .downloading = fixture.cache.status(for: url), ContinuousClock.now < deadline {
            // A released flock tells no watcher (no inotify event): looked at every 20 ms.
            try await Task.sleep(for: .milliseconds(20))
        }
        let sentBefore = server.bytesSent("/gaps.bin")
        // Another process (a new cache over the same folder) sees every byte held.
        let again = try MediaCache(directory: fixture.folder.path + "/cache", configuration: fixture.cache.configuration)
        let kept = again.status(for: url).received
        #expect(kept >= later, "held \(later) before the stop, \(kept) after")
        server.release("/gaps.bin")
        server.throttle("/gaps.bin", bytesPerSecond: 50_000_000)
        let path = try await again.fetch(url)
        #expect(try await sha256(ofFile: path) == sha256(bytes))
        let fetchedAgain = server.bytesSent("/gaps.bin") - sentBefore
        #expect(fetchedAgain <= size - Int(kept), "\(fetchedAgain) bytes fetched again for \(size - Int(kept)) missing")
    }

    @Test func aCachedEntryReadsAtOnce() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 10_000, seed: 44)
        server.serve("/done.bin", bytes: bytes)
        let fixture = try Self.fixture()
        let url = server.url("/done.bin")
        _ = try await fixture.cache.fetch(url)
        let reader = try fixture.cache.open(url)
        #expect(reader.wasComplete)
        #expect(try reader.size() == 10_000)
        #expect(try await Self.read(reader, at: 5_000, count: 10_000) == Array(bytes[5_000...]))
        #expect(server.getCount("/done.bin") == 1)
    }

    @Test func heldRangesMergeAndRoundTrip() {
        var held = HeldRanges()
        held.insert(100..<200)
        held.insert(0..<50)
        held.insert(50..<100)
        held.insert(300..<400)
        #expect(held.ranges == [0..<200, 300..<400])
        #expect(held.runEnd(containing: 150) == 200)
        #expect(held.runEnd(containing: 250) == nil)
        #expect(held.nextStart(atOrAfter: 200) == 300)
        #expect(HeldRanges(text: held.description) == held)
        #expect(held.clamped(below: 350).ranges == [0..<200, 300..<350])
        #expect(!held.covers(total: 400))
        held.insert(200..<300)
        #expect(held.covers(total: 400))
        held.insert(400..<450)  // extends the run in place
        #expect(held.ranges == [0..<450])
        #expect(HeldRanges(text: "5-1") == nil)
    }
}
