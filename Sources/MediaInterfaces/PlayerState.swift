/// Where a player is, in the engine's own words. The session turns it into
/// an item's state (`ItemState`): it decides, for instance, that a player
/// still starting reads as `playing` once its file is open.
public enum PlayerState: String, Sendable, Equatable, CaseIterable {
    /// Opening the file, decoding the first frames: nothing output yet.
    case starting
    case playing
    /// Waiting for a download to catch up (it resumes by itself).
    case buffering
    case paused
    /// Cut short: stopped, or its window closed.
    case stopped
    /// Played to the end of the media.
    case ended
    case failed

    /// It will not play again.
    public var isFinal: Bool { self == .stopped || self == .ended || self == .failed }

    /// It has output and not finished: playing, buffering or paused.
    public var isActive: Bool { self == .playing || self == .buffering || self == .paused }
}
