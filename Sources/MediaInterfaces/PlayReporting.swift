import Foundation

/// Who is told that an item began and that it was played to its end: a
/// media server that keeps plays (a Subsonic server's now-playing and
/// scrobble). The session calls it, outside its lock; it must not block
/// (its requests run on a queue of its own).
public protocol PlayReporting: Sendable {
    /// Playback of the file at `url` started (from its beginning or not).
    func started(_ url: URL)
    /// The file at `url` was played to its end.
    func ended(_ url: URL)
    /// Waits for the reports sent so far (at shutdown). Blocking: run off
    /// the cooperative pool.
    func flush()
}
