import Foundation
import MediaCache
import Synchronization
import Testing
import TestKit

/// A radio that drops and comes back: the reconnection is said, and the
/// notice is cleared once sound flows again.
@Suite(.timeLimit(.minutes(1))) struct LiveNoticeTests {
    @Test func aReconnectionNoticeClearsWhenTheStreamFlowsAgain() async throws {
        let server = try TestHTTPServer()
        server.serve("/radio", bytes: TestHTTPServer.bytes(count: 400_000, seed: 51))
        // The first connection drops after 100 kB; the second serves on.
        server.inject("/radio", [.resetAfter(100_000)])
        let stream = LiveStream(url: server.url("/radio"))
        let notices = Mutex<[String?]>([])
        let (changes, changed) = AsyncStream<Void>.makeStream()
        stream.onNotice = { notice in
            notices.withLock { $0.append(notice) }
            changed.yield()
        }
        // Reading starts the transfer; the reader takes what comes, off the pool.
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var offset: Int64 = 0
            while let got = try? buffer.withUnsafeMutableBytes({ try stream.read(into: $0, at: offset) }), got > 0 { offset += Int64(got) }
        }
        reader.start()
        defer { stream.interrupt() }
        for await _ in changes where notices.withLock({ $0.count >= 2 }) { break }
        let said = notices.withLock { $0 }
        #expect(said.first??.contains("reconnecting (1 of 5)") == true, "\(said)")
        #expect(said.dropFirst().first == .some(nil), "cleared: \(said)")
    }
}
