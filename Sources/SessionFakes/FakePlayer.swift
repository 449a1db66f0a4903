import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaSession
import Synchronization

// Stand-ins for the engine and the cache, so that the command layer is
// tested alone: deterministic, fast, without SDL, FFmpeg or a network.
// `PlayerConformanceTests` holds FakePlayer to the contract the engine's
// Player keeps, so a session test on fakes says what the real one does.

/// A player that plays nothing: the test moves it (`advance`, `finish`,
/// `fail`), and it reports as the engine's player does.
public final class FakePlayer: PlayerHandle, @unchecked Sendable {
    public let key: ItemKey
    public let start: Double
    public let controls: @Sendable (VideoWindowInput) -> Void
    private let lock = NSCondition()
    private var state: PlayerState = .starting
    /// What the session last said about a next item (autoplay).
    public private(set) var followed = false
    private var position: Double
    private var failureText: String?
    private var inputFailed = false
    private var pauseRequested = false
    private let info: MediaInfo
    private let subscribers = Broadcaster<PlayerEvent>()

    public init(key: ItemKey, kind: MediaKind?, start: Double, controls: @escaping @Sendable (VideoWindowInput) -> Void) {
        self.key = key
        self.start = start
        self.controls = controls
        position = start
        info = MediaInfo(hasAudio: kind != .image, hasVideo: kind != .audio, isImage: kind == .image, rotation: 0, duration: kind == .image ? nil : 60)
    }

    /// The sleep timer's fade, as the session last set it.
    public var fadeOut: ClosedRange<Double>? { lock.withLock { fade } }
    private var fade: ClosedRange<Double>?

    public func setFadeOut(_ range: ClosedRange<Double>?) {
        lock.withLock { fade = range }
    }

    public var currentState: PlayerState { lock.withLock { state } }
    public var currentPosition: Double { lock.withLock { position } }
    public var mediaInfo: MediaInfo? { info }
    public var failure: String? { lock.withLock { failureText } }
    public var failedForInput: Bool { lock.withLock { inputFailed } }
    public var bufferFill: Double? { nil }
    public var currentStatistics: PlaybackStatistics { PlaybackStatistics() }

    public func events() -> AsyncStream<PlayerEvent> {
        lock.withLock { subscribers.subscribe(replaying: [.opened(info), .state(state)]) }
    }

    private func set(_ new: PlayerState) {
        lock.withLock {
            state = new
            subscribers.send(.state(new))
            lock.broadcast()
        }
        if new.isFinal { subscribers.finish() }
    }

    /// Set by the engine: `play()` reports `playing` with the player
    /// already ended.
    var endsAsItPlays = false

    /// As `Player.play`: a pause asked for before it began holds.
    public func play() {
        if endsAsItPlays {
            lock.withLock {
                played = true
                position = 60
                state = .ended
                subscribers.send(.state(.playing))
                subscribers.send(.state(.ended))
                lock.broadcast()
            }
            subscribers.finish()
            return
        }
        let held = lock.withLock {
            played = true
            return pauseRequested
        }
        set(held ? .paused : .playing)
    }

    /// Whether `play()` was ever called: a player the session opened but
    /// never started reads false.
    public private(set) var played = false
    public var wasPlayed: Bool { lock.withLock { played } }
    /// As `Player.pause`: a player still starting (idle) or buffering is
    /// paused too, not only a playing one.
    public func pause() {
        let pauses: Bool = lock.withLock {
            guard !state.isFinal else { return false }
            pauseRequested = true
            return [PlayerState.starting, .playing, .buffering].contains(state)
        }
        if pauses { set(.paused) }
    }

    public func resume() {
        let resumes: Bool = lock.withLock {
            guard !state.isFinal, pauseRequested else { return false }
            pauseRequested = false
            return state == .paused
        }
        if resumes { set(.playing) }
    }
    /// As `Player.seek`: clamped to the item, nothing once finished.
    public func seek(to seconds: Double) {
        lock.withLock {
            guard !state.isFinal else { return }
            position = CheckedNumber.position(seconds, within: info.duration)
            subscribers.send(.position(position))
        }
    }
    public func stop() { if !currentState.isFinal { set(.stopped) } }
    public private(set) var settings = AudioSettings()
    public func setAudioSettings(_ settings: AudioSettings) { lock.withLock { self.settings = settings } }
    public func setFollowed(_ followed: Bool) { lock.withLock { self.followed = followed } }
    public func waitUntilFinished() -> PlayerState { lock.withLock { while !state.isFinal { lock.wait() }; return state } }
    /// As `Player`'s virtual clock: time passes only while it plays.
    public func advanceVirtualClock(by seconds: Double) {
        guard lock.withLock({ !pauseRequested && !state.isFinal }) else { return }
        advance(seconds)
    }

    /// Media time passes; past its duration, it has ended (as a `Player`
    /// on the virtual clock).
    public func advance(_ seconds: Double) {
        let ended: Bool = lock.withLock {
            guard !state.isFinal else { return false }
            position = min(position + seconds, info.duration ?? .infinity)
            subscribers.send(.position(position))
            return position == info.duration
        }
        if ended { set(.ended) }
    }

    /// Played to its end.
    public func finish() {
        lock.withLock { position = 60 }
        set(.ended)
    }

    public func fail(_ message: String, input: Bool) {
        lock.withLock {
            failureText = message
            inputFailed = input
        }
        set(.failed)
    }
}
