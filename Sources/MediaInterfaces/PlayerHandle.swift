import MediaModel

/// What the session needs of a player: the engine's `Player`, or a test's
/// stand-in. Only the session calls these (docs/ARCHITECTURE.md).
public protocol PlayerHandle: AnyObject, Sendable {
    var currentState: PlayerState { get }
    var currentPosition: Double { get }
    var mediaInfo: MediaInfo? { get }
    /// The loudness gain applied, once the file is open (nil: none).
    var appliedGain: AppliedGain? { get }
    /// Why it failed, once it has.
    var failure: String? { get }
    /// The failure's reason without the file's name (the session says
    /// which item): `failure` where a player has nothing shorter.
    var failureReasonOnly: String? { get }
    /// The sleep timer's fade over `range` (media seconds), then a pause at
    /// its end; nil cancels it.
    func setFadeOut(_ range: ClosedRange<Double>?)
    /// The failure was the input's (a download), not the media's.
    var failedForInput: Bool { get }
    var bufferFill: Double? { get }
    var currentStatistics: PlaybackStatistics { get }
    /// What is known already (opened, the state), then changes; ends after
    /// the final state.
    func events() -> AsyncStream<PlayerEvent>
    func play()
    func pause()
    func resume()
    func seek(to seconds: Double)
    /// Volume, mute and speed (see `Player.setAudioSettings`).
    func setAudioSettings(_ settings: AudioSettings)
    /// Whether autoplay will play another item after this one: its audio
    /// device is then handed on before its last samples play (gapless);
    /// otherwise it plays out, and the item ends when its last sample is heard.
    func setFollowed(_ followed: Bool)
    func stop()
    /// Blocks until the final state (run off the cooperative pool).
    func waitUntilFinished() -> PlayerState
    /// Blocks while `seconds` of media play on the virtual clock.
    func advanceVirtualClock(by seconds: Double)
    /// The audio and subtitle tracks, once open (nil: not yet, or none known).
    var trackStatus: TrackStatus? { get }
    /// The subtitle text showing now.
    var currentSubtitle: String? { get }
    /// A `subtitle`, `audio-track` or `sub-delay` command (see `Player.changeTracks`).
    func changeTracks(_ command: PlayerCommand) throws(CommandError) -> TrackStatus
}

extension PlayerHandle {
    public var failureReasonOnly: String? { failure }
    public var appliedGain: AppliedGain? { nil }
    public var trackStatus: TrackStatus? { nil }
    public var currentSubtitle: String? { nil }
    public func changeTracks(_ command: PlayerCommand) throws(CommandError) -> TrackStatus {
        throw CommandError(.badRequest, "the current item has no tracks to choose")
    }
}
