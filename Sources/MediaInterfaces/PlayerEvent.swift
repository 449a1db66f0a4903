import Foundation
import MediaModel

/// Events a player publishes, in order.
public enum PlayerEvent: Sendable, Equatable {
    /// The file is open: what it holds (whether or not every stream is played).
    case opened(MediaInfo)
    /// The player's state, its own: starting until the first output, then playing, buffering or paused, and last stopped (by
    /// `stop()` before the end), ended or failed (`Player.failure` says why).
    case state(PlayerState)
    /// Seconds of media played (audio clock when there is audio), at most
    /// ten a second, and once after every seek; `Player.currentPosition` is
    /// always exact.
    case position(Double)
    /// While buffering: how full the buffer is, 0...1 (at most ten a second).
    case buffered(Double)
    /// The subtitle text showing changed (nil: none shows), at the
    /// position's pace; `Player.currentSubtitle` is always exact.
    case subtitle(String?)
}
