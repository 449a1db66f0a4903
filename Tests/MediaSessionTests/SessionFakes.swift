import Foundation
import MediaCache
import MediaCacheFolder
import MediaEngine
import MediaFeed
import MediaModel
import MediaSession
import Synchronization

// Stand-ins for the engine and the cache, so that the command layer is
// tested alone: deterministic, fast, without SDL, FFmpeg or a network.

/// A player that plays nothing: the test moves it (`advance`, `finish`,
/// `fail`), and it reports as the engine's player does.
final class FakePlayer: PlayerHandle, @unchecked Sendable {
    let key: ItemKey
    let start: Double
    let controls: @Sendable (VideoWindowInput) -> Void
    private let lock = NSCondition()
    private var state: PlayerState = .starting
    /// What the session last said about a next item (autoplay).
    private(set) var followed = false
    private var position: Double
    private var failureText: String?
    private var inputFailed = false
    private let info: MediaInfo
    private let subscribers = Broadcaster<PlayerEvent>()

    init(key: ItemKey, kind: MediaKind?, start: Double, controls: @escaping @Sendable (VideoWindowInput) -> Void) {
        self.key = key
        self.start = start
        self.controls = controls
        position = start
        info = MediaInfo(hasAudio: kind != .image, hasVideo: kind != .audio, isImage: kind == .image, rotation: 0, duration: kind == .image ? nil : 60)
    }

    var currentState: PlayerState { lock.withLock { state } }
    var currentPosition: Double { lock.withLock { position } }
    var mediaInfo: MediaInfo? { info }
    var failure: String? { lock.withLock { failureText } }
    var failedForInput: Bool { lock.withLock { inputFailed } }
    var bufferFill: Double? { nil }
    var currentStatistics: PlaybackStatistics { PlaybackStatistics() }

    func events() -> AsyncStream<PlayerEvent> {
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

    func play() {
        lock.withLock { played = true }
        set(.playing)
    }

    /// Whether `play()` was ever called: a player the session opened but
    /// never started reads false.
    private(set) var played = false
    var wasPlayed: Bool { lock.withLock { played } }
    /// As `Player.pause`: a player still starting (idle) or buffering is
    /// paused too, not only a playing one.
    func pause() { if [PlayerState.starting, .playing, .buffering].contains(currentState) { set(.paused) } }
    func resume() { if currentState == .paused { set(.playing) } }
    func seek(to seconds: Double) {
        lock.withLock {
            position = seconds
            subscribers.send(.position(seconds))
        }
    }
    func stop() { if !currentState.isFinal { set(.stopped) } }
    private(set) var settings = AudioSettings()
    func setAudioSettings(_ settings: AudioSettings) { lock.withLock { self.settings = settings } }
    func setFollowed(_ followed: Bool) { lock.withLock { self.followed = followed } }
    func waitUntilFinished() -> PlayerState { lock.withLock { while !state.isFinal { lock.wait() }; return state } }
    func advanceVirtualClock(by seconds: Double) { advance(seconds) }

    /// Media time passes.
    func advance(_ seconds: Double) {
        lock.withLock {
            position += seconds
            subscribers.send(.position(position))
        }
    }

    /// Played to its end.
    func finish() {
        lock.withLock { position = 60 }
        set(.ended)
    }

    func fail(_ message: String, input: Bool) {
        lock.withLock {
            failureText = message
            inputFailed = input
        }
        set(.failed)
    }
}

/// Makes fake players and remembers them, in order.
final class FakeEngine: PlayerFactory, Sendable {
    var clock: PlaybackClock { .virtual }
    private let made = Mutex<[FakePlayer]>([])

    func makePlayer(
        for item: FeedItem, input: MediaInput, start: Double, settings: AudioSettings, controls: @escaping @Sendable (VideoWindowInput) -> Void
    ) -> any PlayerHandle {
        let player = FakePlayer(key: item.key, kind: item.kind, start: start, controls: controls)
        player.setAudioSettings(settings)
        made.withLock { $0.append(player) }
        return player
    }

    var players: [FakePlayer] { made.withLock { $0 } }
    /// The newest player of `key`.
    func player(_ key: ItemKey) -> FakePlayer? { players.last { $0.key == key } }
}

/// A cache whose downloads the test scripts: each URL is cached, fails, or
/// downloads in steps; nothing touches the network.
final class FakeStore: MediaStore, Sendable {
    enum Outcome: Sendable {
        case succeeds(path: String)
        case fails(CacheError)
        /// Half comes, then it waits for `release` (or a cancel).
        case waits(path: String)
    }

    private let outcomes: [URL: Outcome]
    private let cached = Mutex<[URL: String]>([:])
    private let cancelled = Mutex<[URL]>([])
    private let waiting = Mutex<[URL: AsyncStream<DownloadEvent>.Continuation]>([:])

    /// Lets a waiting download finish.
    func release(_ url: URL) {
        guard case let .waits(path)? = outcomes[url], let continuation = waiting.withLock({ $0.removeValue(forKey: url) }) else { return }
        cached.withLock { $0[url] = path }
        continuation.yield(.finished(path: path, alreadyCached: false))
        continuation.finish()
    }

    init(_ outcomes: [URL: Outcome]) { self.outcomes = outcomes }

    var cancellations: [URL] { cancelled.withLock { $0 } }

    func cachedFile(for url: URL) -> String? { cached.withLock { $0[url] } }

    func openReader(_ url: URL) async throws(CacheError) -> any ByteSource {
        switch outcomes[url] {
        case let .succeeds(path)?, let .waits(path)?: return FileBytes(path: path)
        case let .fails(error)?: throw error
        case nil: throw .http(status: 404, host: url.host ?? "")
        }
    }

    func downloadWhole(_ url: URL) -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DownloadEvent.self)
        switch outcomes[url] {
        case let .succeeds(path)?:
            continuation.yield(.progress(DownloadProgress(phase: .downloading, received: 50, total: 100, bytesPerSecond: 0)))
            cached.withLock { $0[url] = path }
            continuation.yield(.finished(path: path, alreadyCached: false))
        case let .fails(error)?:
            continuation.yield(.failed(error))
        case .waits?:
            continuation.yield(.progress(DownloadProgress(phase: .downloading, received: 50, total: 100, bytesPerSecond: 0)))
            waiting.withLock { $0[url] = continuation }
            return stream
        case nil:
            continuation.yield(.failed(.http(status: 404, host: url.host ?? "")))
        }
        continuation.finish()
        return stream
    }

    func cancel(_ url: URL) {
        cancelled.withLock { $0.append(url) }
        if let continuation = waiting.withLock({ $0.removeValue(forKey: url) }) {
            continuation.yield(.failed(.cancelled))
            continuation.finish()
        }
    }
}

/// A byte source over a file (what the fake engine is given; it reads nothing).
final class FileBytes: ByteSource, @unchecked Sendable {
    let name: String
    var onWait: (@Sendable (Bool) -> Void)?
    init(path: String) { name = path }
    func size() throws -> Int64? { 0 }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int { 0 }
    func interrupt() {}
}
