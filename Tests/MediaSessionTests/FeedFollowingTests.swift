import Foundation
import MediaFeed
import MediaModel
import MediaSession
import SessionFakes
import Synchronization
import Testing
import TestKit

/// The socket and MPRIS follow the feed file through one follower: a
/// request that finds the file unchanged finds the session up to date.
@Suite struct FeedFollowingTests {
    @Test func aSecondFollowerWaitsForTheFirstOnesUpdate() async throws {
        let old = try FeedDecoder.decode(Array(#"[{"type": 1, "title": "A", "url": "file:///a.wav"}]"#.utf8))
        let new = try FeedDecoder.decode(Array(#"[{"type": 1, "title": "B", "url": "file:///b.wav"}, {"type": 1, "title": "A", "url": "file:///a.wav"}]"#.utf8))
        let session = MediaSession(feed: old, store: nil, positions: nil, engine: FakeEngine())
        let calls = Atomic<Int>(0)
        let gate = DispatchSemaphore(value: 0)
        // The first check (MPRIS's, say) finds the file changed and is slow
        // to take it in; the second (a socket request's) finds it read.
        let entered = DispatchSemaphore(value: 0)
        let following = FeedFollowing(session: session) {
            if calls.add(1, ordering: .sequentiallyConsistent).newValue == 1 {
                entered.signal()
                gate.wait()
                return new
            }
            return nil
        }
        let first = Thread { following.follow() }
        first.start()
        entered.wait()
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            following.follow()
            seen.withLock { $0 = session.feed.items.first?.title }
            done.signal()
        }.start()
        // A moment for the second check to reach the first one's lock: a
        // thread blocked on a lock tells no one, so no event exists for it
        // (were it late, the check would still pass: it sees the file read).
        usleep(100_000)
        gate.signal()
        done.wait()
        #expect(seen.withLock { $0 } == "B", "item 1 means what the file says now")
    }
}
