import MediaFeed
import MediaInterfaces
import MediaModel

/// Makes the player for an item: the engine with its outputs, or a test's
/// fake. `controls` is where a window's keys go: back into the session,
/// never straight to the player.
public protocol PlayerFactory: Sendable {
    /// The clock players run on (scripts advance a virtual one).
    var clock: PlaybackClock { get }
    func makePlayer(
        for item: FeedItem, input: MediaInput, start: Double, settings: AudioSettings, tracks: TrackSettings,
        subtitleFiles: [SidecarSubtitles.File], controls: @escaping @Sendable (VideoWindowInput) -> Void
    ) -> any PlayerHandle
    /// Blocks until what the last item left on the device has played (the
    /// session's end; run off the cooperative pool).
    func finish()
}

extension PlayerFactory {
    public func finish() {}
}
