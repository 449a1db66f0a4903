/// How media time relates to wall time.
public enum PlaybackClock: Sendable, Equatable {
    /// Real time: a device plays, or the system clock paces file sinks.
    case realTime
    /// As fast as decoding allows (only with file or null sinks).
    case untimed
    /// Media time moves only when `advanceVirtualClock(by:)` says so, then as
    /// fast as decoding allows: scripted playback that is exact and quick.
    case virtual
}
