@testable import MediaSession
import Synchronization
import Testing

/// Settle counting alone: a settle waits for the work running, and only
/// the last piece's end wakes it.
@Suite struct BackgroundWorkTests {
    /// The session's lock and what it guards, as the tasks share them.
    final class Guarded: Sendable {
        let work = Mutex(BackgroundWork())
    }

    @Test func onlyTheLastEndWakesTheSettle() async {
        let session = Guarded()
        session.work.withLock {
            $0.begin()
            $0.begin()
        }
        let (parked, parking) = AsyncStream.makeStream(of: Bool.self)
        let settling = Task {
            await withCheckedContinuation { continuation in
                let waits = session.work.withLock { $0.settle(continuation) }
                parking.yield(waits)
                if !waits { continuation.resume() }
            }
        }
        var iterator = parked.makeAsyncIterator()
        let waits = await iterator.next()
        #expect(waits == true, "work runs: it waits")
        let early = session.work.withLock { $0.end() }
        #expect(early.count == 0, "one piece is still running")
        let woken = session.work.withLock { $0.end() }
        #expect(woken.count == 1)
        let idle = session.work.withLock { $0.isIdle }
        #expect(idle)
        woken.resume()
        await settling.value
    }

    @Test func aSettleAfterTheWorkReturnsAtOnce() async {
        let session = Guarded()
        let running = session.work.withLock {
            $0.begin()
            return !$0.isIdle
        }
        #expect(running)
        let woken = session.work.withLock { $0.end() }
        #expect(woken.count == 0, "nobody was settling")
        await withCheckedContinuation { continuation in
            let waits = session.work.withLock { $0.settle(continuation) }
            #expect(!waits)
            if !waits { continuation.resume() }
        }
    }
}
