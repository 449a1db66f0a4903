import Foundation
import MediaCache
import MediaModel
import Synchronization
import Testing
import TestKit

/// A radio that drops and comes back: the reconnection is said, made after
/// its pause on the stream's clock, and the notice is cleared once sound
/// flows again.
@Suite(.timeLimit(.minutes(1))) struct LiveNoticeTests {
    @Test func aReconnectionNoticeClearsWhenTheStreamFlowsAgain() async throws {
        let server = try TestHTTPServer()
        server.serve("/radio", bytes: TestHTTPServer.bytes(count: 400_000, seed: 51))
        // The first connection drops after 100 kB; the second serves on.
        server.inject("/radio", [.resetAfter(100_000)])
        let clock = ManualClock()
        let stream = LiveStream(url: server.url("/radio"), clock: clock)
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
        var heard = changes.makeAsyncIterator()
        while notices.withLock({ $0.isEmpty }), await heard.next() != nil {}
        // The first pause (half a second) waits on the clock: no second connection before it.
        await clock.waitForSleepers(1)
        #expect(server.getCount("/radio") == 1)
        clock.advance(by: 0.49)
        #expect(clock.sleeperCount == 1, "still pausing")
        clock.advance(by: 0.01)
        while notices.withLock({ $0.count < 2 }), await heard.next() != nil {}
        #expect(server.getCount("/radio") == 2)
        let said = notices.withLock { $0 }
        #expect(said.first??.contains("reconnecting (1 of 5)") == true, "\(said)")
        #expect(said.dropFirst().first == .some(nil), "cleared: \(said)")
    }
}
