import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaSession
import Synchronization

/// Makes fake players and remembers them, in order.
public final class FakeEngine: PlayerFactory, Sendable {
    public var clock: PlaybackClock { .virtual }

    public init() {}
    private let made = Mutex<[FakePlayer]>([])
    private let endingAtOnce = Mutex<Set<ItemKey>>([])

    /// `key`'s players end as they start playing: their `playing` is
    /// reported once they have already ended (a short item on a busy machine).
    public func endAtOnce(_ key: ItemKey) {
        endingAtOnce.withLock { _ = $0.insert(key) }
    }

    public func makePlayer(
        for item: FeedItem, input: MediaInput, start: Double, settings: AudioSettings, tracks: TrackSettings, subtitleFiles: [SidecarSubtitles.File], controls: @escaping @Sendable (VideoWindowInput) -> Void
    ) -> any PlayerHandle {
        let player = FakePlayer(key: item.key, kind: item.kind, start: start, controls: controls)
        player.setAudioSettings(settings)
        player.endsAsItPlays = endingAtOnce.withLock { $0.contains(item.key) }
        made.withLock { $0.append(player) }
        return player
    }

    public var players: [FakePlayer] { made.withLock { $0 } }
    /// The newest player of `key`.
    public func player(_ key: ItemKey) -> FakePlayer? { players.last { $0.key == key } }
}
