import Foundation
import MediaCache
import Testing
import TestSupport

/// Reading an entry while it downloads: bytes come as they arrive, a read
/// far ahead starts a ranged transfer, and the entry still completes as one
/// verified file with no byte fetched twice.
@Suite struct PartialReadTests {
    /// Reads `count` bytes at `offset` on a thread of its own (reads block).
    static func read(_ reader: CacheReader, at offset: Int64, count: Int) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                var result = [UInt8](repeating: 0, count: count)
                var done = 0
                do {
                    while done < count {
                        let got = try result.withUnsafeMutableBytes { raw in
                            try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]), at: offset + Int64(done))
                        }
                        if got == 0 { break }
                        done += got
                    }
                    continuation.resume(returning: Array(result[0..<done]))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }

    static func waitForFinish(_ cache: MediaCache, _ url: URL) async throws -> String {
        try await cache.fetch(url)
    }

    @Test func readsWhileDownloadingWithOneTransfer() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 600_000, seed: 40)
        server.serve("/slow.bin", bytes: bytes)
        server.throttle("/slow.bin", bytesPerSecond: 400_000)
        let fixture = try CacheFixture()
        let url = server.url("/slow.bin")
        let reader = try fixture.cache.open(url)
        #expect(!reader.wasComplete)
        #expect(try reader.size() == 600_000)

        let first = try await Self.read(reader, at: 0, count: 20_000)
        #expect(first == Array(bytes[0..<20_000]))
        // The first bytes were readable long before the transfer could end.
        #expect(fixture.cache.cachedFile(for: url) == nil)

        let all = try await Self.read(reader, at: 0, count: 700_000)
        #expect(all == bytes)
        let path = try await Self.waitForFinish(fixture.cache, url)
        #expect(try sha256(ofFile: path) == sha256(bytes))
        #expect(server.getCount("/slow.bin") == 1)
        #expect(server.bytesSent("/slow.bin") == bytes.count)
    }

    @Test func readFarAheadStartsARangedTransferAndNothingIsFetchedTwice() async throws {
        let server = try TestHTTPServer()
        let size = 2_000_000
        let bytes = TestHTTPServer.bytes(count: size, seed: 41)
        server.serve("/seek.bin", bytes: bytes)
        server.throttle("/seek.bin", bytesPerSecond: 1_000_000)
        let fixture = try CacheFixture()
        let url = server.url("/seek.bin")
        let reader = try fixture.cache.open(url)
        _ = try reader.size()

        // An MP4 index at the end: read the last 100 kB first.
        let tail = try await Self.read(reader, at: Int64(size - 100_000), count: 100_000)
        #expect(tail == Array(bytes[(size - 100_000)...]))
        #expect(fixture.cache.cachedFile(for: url) == nil)
        let ranged = server.requests("/seek.bin").filter { $0.headers["range"] == "bytes=\(size - 100_000)-" }
        #expect(ranged.count == 1)
        #expect(ranged.first?.headers["if-range"] != nil)

        // While partial, the index says which ranges the part file holds.
        let middle = try await Self.read(reader, at: 1_000_000, count: 10_000)
        #expect(middle == Array(bytes[1_000_000..<1_010_000]))
        if case let .downloading(received, total)? = Optional(fixture.cache.status(for: url)) {
            #expect(received < Int64(size))
            #expect(total == Int64(size))
        }

        let all = try await Self.read(reader, at: 0, count: size)
        #expect(all == bytes)
        let path = try await Self.waitForFinish(fixture.cache, url)
        #expect(try sha256(ofFile: path) == sha256(bytes))
        // Transfers stop where another began: about the file once, plus
        // what was in flight when one stopped.
        #expect(server.bytesSent("/seek.bin") < size + size / 10)
        #expect(server.getCount("/seek.bin") <= 5)
    }

    @Test func aResetMidStreamResumesAndTheReaderGetsEveryByte() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 800_000, seed: 42)
        server.serve("/reset.bin", bytes: bytes)
        server.throttle("/reset.bin", bytesPerSecond: 800_000)
        server.inject("/reset.bin", [.resetAfter(300_000)])
        let fixture = try CacheFixture()
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
        server.inject("/gone.bin", [.resetAfter(200_000)])
        server.throttle("/gone.bin", bytesPerSecond: 500_000)
        let fixture = try CacheFixture()
        let url = server.url("/gone.bin")
        let reader = try fixture.cache.open(url)
        let head = try await Self.read(reader, at: 0, count: 100_000)
        #expect(head == Array(bytes[0..<100_000]))
        server.stopListening()
        await #expect(throws: CacheError.self) { _ = try await Self.read(reader, at: 0, count: bytes.count) }
        guard case let .failed(reason, received) = fixture.cache.status(for: url) else {
            Issue.record("expected a failed entry, got \(fixture.cache.status(for: url))")
            return
        }
        #expect(reason.contains("127.0.0.1"))
        #expect(received >= 100_000 && received <= 200_000)

        // The server is back: the next fetch resumes where the part file ends.
        let back = try TestHTTPServer(port: server.port)
        back.serve("/gone.bin", bytes: bytes)
        #expect(try sha256(ofFile: try await fixture.cache.fetch(url)) == sha256(bytes))
        #expect(back.requests("/gone.bin").first?.headers["range"] == "bytes=\(received)-")
    }

    @Test func aCachedEntryReadsAtOnce() async throws {
        let server = try TestHTTPServer()
        let bytes = TestHTTPServer.bytes(count: 10_000, seed: 44)
        server.serve("/done.bin", bytes: bytes)
        let fixture = try CacheFixture()
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
        #expect(HeldRanges(text: "5-1") == nil)
    }
}
