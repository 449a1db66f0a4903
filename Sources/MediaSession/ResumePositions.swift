import Foundation
import MediaModel
import MediaState
import Synchronization

/// The session's view of resume positions: read from memory, written to the
/// store on a queue of their own, so no SQLite call runs under the
/// session's lock or on Swift's cooperative pool. Keyed by the item's media
/// URL: a position belongs to the file (the same file in two feeds resumes
/// at one place; an item whose URL changed is another file and starts over).
final class ResumePositions: Sendable {
    private let store: StateStore?
    private let known: Mutex<[String: Double]>
    private let writes = DispatchQueue(label: "mediaplay.positions")
    private let played = Mutex<Set<String>>([])

    init(store: StateStore?) {
        self.store = store
        known = Mutex(store?.all() ?? [:])
    }

    func position(for url: String) -> Double? { known.withLock { $0[url] } }

    func save(_ seconds: Double, for url: String) {
        known.withLock { $0[url] = seconds }
        guard let store else { return }
        // The store was checked at the start (`checkWritable`); a later
        // failure has no one to tell.
        writes.async { try? store.save(seconds, for: url) }
    }

    /// Where a playback of `url` was left (a pause, a stop, a switch, a
    /// periodic save): the one rule of every player. Left part way, it
    /// resumes there; nearly finished (`isPlayed`), it is marked played and
    /// its position forgotten, so the next start begins at the top.
    func keep(_ seconds: Double, of duration: Double?, for url: String) {
        if Self.isPlayed(at: seconds, of: duration) {
            remove(for: url)
            markPlayed(url)
        } else {
            save(seconds, for: url)
        }
    }

    func remove(for url: String) {
        known.withLock { $0[url] = nil }
        guard let store else { return }
        writes.async { try? store.remove(for: url) }
    }

    /// Reads `url`'s saved position again (another process, the background
    /// player or browse, may have saved it since), after the writes queued
    /// so far. Blocking: run off the cooperative pool.
    func refresh(_ url: String) {
        guard let store else { return }
        writes.sync {
            let saved = store.position(for: url)
            known.withLock { $0[url] = saved }
        }
    }

    /// Marks `url` played, once per run of the session (a podcast client's
    /// "played": `list` shows it).
    func markPlayed(_ url: String) {
        guard let store, played.withLock({ $0.insert(url).inserted }) else { return }
        writes.async { try? store.setPlayed(true, for: url) }
    }

    /// A new playback of `url`: reaching its end marks it again (it may
    /// have been marked unplayed since).
    func startsAgain(_ url: String) {
        _ = played.withLock { $0.remove(url) }
    }

    /// Whether a playback at `position` of `duration` has reached the end
    /// as a listener means it: its last 10 seconds or its last 1 %,
    /// whichever is shorter.
    static func isPlayed(at position: Double, of duration: Double?) -> Bool {
        guard let duration, duration > 0 else { return false }
        return position >= duration - min(10, duration * 0.01)
    }

    /// Waits for the writes queued so far (at shutdown).
    func flush() {
        writes.sync {}
    }
}
