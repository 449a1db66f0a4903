import Foundation
import MediaEngine
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
        let session = MediaSession(feed: old, store: nil, positions: nil, engine: MediaPlayerFactory(clock: .virtual, audio: .off, video: .off) { _ in })
        let calls = Atomic<Int>(0)
        let gate = DispatchSemaphore(value: 0)
        // The first check (MPRIS's, say) finds the file changed and is slow
        // to take it in; the second (a socket request's) finds it read.
        let following = FeedFollowing(session: session) {
            if calls.add(1, ordering: .sequentiallyConsistent).newValue == 1 {
                gate.wait()
                return new
            }
            return nil
        }
        let first = Thread { following.follow() }
        first.start()
        while calls.load(ordering: .sequentiallyConsistent) == 0 { usleep(1000) }
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            following.follow()
            seen.withLock { $0 = session.feed.items.first?.title }
            done.signal()
        }.start()
        usleep(100_000)
        gate.signal()
        done.wait()
        #expect(seen.withLock { $0 } == "B", "item 1 means what the file says now")
    }
}
