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
    /// Why the server answered the request for its song at `url` with a
    /// document rather than the song, in words (a password changed since
    /// the library was kept: "the server … refused user alice: wrong
    /// password"); nil when `url` is none of its songs or it answers well.
    /// Blocking (one request): run off the cooperative pool.
    func refusal(of url: URL) -> String?
}
