import Dispatch
import MediaFeed

/// The daemon's one follower of its feed file. Every front end (a socket
/// client's thread, MPRIS's bus thread) takes the file's changes in through
/// it, one at a time: a request that finds the file unchanged also finds the
/// session up to date. (MPRIS followed on its own thread: a socket request
/// could see the file as read and resolve "3" against the old feed.)
public final class FeedFollowing: Sendable {
    private let session: MediaSession
    private let reload: @Sendable () -> Feed?
    private let queue = DispatchQueue(label: "mediaplay.feed-following")

    /// `reload` returns the feed when it changed since it was last read.
    public init(session: MediaSession, reload: @escaping @Sendable () -> Feed?) {
        self.session = session
        self.reload = reload
    }

    /// Checks the file and follows a change. Blocking (it reads a file):
    /// call it off Swift's cooperative pool.
    public func follow() {
        queue.sync {
            if let changed = reload() { session.update(feed: changed) }
        }
    }
}
