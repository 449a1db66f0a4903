import Foundation
import MediaInterfaces
import MediaModel

/// Options of a playback.
public struct PlaybackOptions: Sendable {
    public var clock = PlaybackClock.realTime
    public var audio = true
    public var video = true
    /// Media time to start at, in seconds.
    public var start: Double = 0
    /// Volume, mute, speed and the loudness mode at the start
    /// (`Player.setAudioSettings` changes them).
    public var settings = AudioSettings()
    /// ReplayGain's preamp, clipping prevention and the normalisation target.
    public var loudness = LoudnessOptions()
    /// The file's measured loudness, when it has been measured.
    public var measured: Loudness?
    /// The user's libavfilter chain (`--af`), applied after the decoder.
    public var filters: String?
    /// Which audio and subtitle tracks play, and the subtitles' delay.
    public var tracks = TrackSettings()
    /// Subtitle files beside the item, and `--sub-file`s: tracks after the file's own.
    public var subtitleFiles: [SidecarSubtitles.File] = []
    /// An adaptive stream's caps on the variant it plays.
    public var variantLimits = VariantLimits()
    public init() {}
}
