@testable import MediaSession
import MediaModel
import Synchronization
import Testing

/// Starts under way alone: begun, cancelled by a stop, ended; toggles that
/// join one are resumed once it is over, and not before.
@Suite struct StartsUnderWayTests {
    @Test func aStopCancelsTheStartUnderWayOnce() {
        var starts = StartsUnderWay()
        let nothingToCancel = starts.cancel("a")
        #expect(!nothingToCancel, "no start: nothing to cancel")
        starts.begin("a")
        #expect(starts.contains("a") && !starts.contains("b"))
        let cancelled = starts.cancel("a")
        #expect(cancelled)
        let stopEnded = starts.end("a")
        #expect(stopEnded, "the stop ended it")
        #expect(!starts.contains("a"))
        let again = starts.end("a")
        #expect(!again, "said once")
        starts.begin("a")
        starts.cancel("a")
        starts.begin("a")
        let forgotten = starts.end("a")
        #expect(!forgotten, "a new start forgets the stop of the one before")
    }

    @Test func aToggleWithNoStartDoesNotWait() async {
        let session = Guarded()
        await withCheckedContinuation { continuation in
            let waits = session.starts.withLock { $0.join("a", continuation) }
            #expect(!waits)
            if !waits { continuation.resume() }
        }
        let woken = session.starts.withLock { $0.finished("a") }
        #expect(woken.count == 0)
    }

    /// The session's lock and what it guards, as the tasks share them.
    final class Guarded: Sendable {
        let starts = Mutex(StartsUnderWay())
    }

    @Test func togglesThatJoinAreResumedWhenTheStartIsOver() async {
        let session = Guarded()
        session.starts.withLock { $0.begin("a") }
        let (joined, joining) = AsyncStream.makeStream(of: Bool.self)
        let toggles = (0..<3).map { _ in
            Task {
                await withCheckedContinuation { continuation in
                    joining.yield(session.starts.withLock { $0.join("a", continuation) })
                }
            }
        }
        var count = 0
        for await waits in joined {
            #expect(waits, "a start runs: the toggle waits for it")
            count += 1
            if count == 3 { break }
        }
        let others = session.starts.withLock { $0.finished("b") }
        #expect(others.count == 0, "another item's start wakes nobody")
        let waiters = session.starts.withLock {
            _ = $0.end("a")
            return $0.finished("a")
        }
        #expect(waiters.count == 3)
        waiters.resume()
        for toggle in toggles { await toggle.value }
        let again = session.starts.withLock { $0.finished("a") }
        #expect(again.count == 0, "each is resumed once")
    }
}
