import CFFmpeg
import Foundation
import MediaModel

/// What the opened file holds, as published once playback starts.
public struct MediaInfo: Sendable, Equatable {
    public var hasAudio: Bool
    public var hasVideo: Bool
    /// A single picture (PNG, JPEG, WebP, a GIF's first frame), not a video.
    public var isImage: Bool
    /// Degrees clockwise that turn the picture upright (0, 90, 180, 270).
    public var rotation: Int
    /// Seconds, when the container says.
    public var duration: Double?

    public init(hasAudio: Bool, hasVideo: Bool, isImage: Bool, rotation: Int, duration: Double?) {
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.isImage = isImage
        self.rotation = rotation
        self.duration = duration
    }
}

/// Events a player publishes, in order.
public enum PlayerEvent: Sendable, Equatable {
    /// The file is open: what it holds (whether or not every stream is played).
    case opened(MediaInfo)
    /// The player's state, in the model's terms: idle until the first
    /// output, then playing, buffering or paused, and last stopped (by
    /// `stop()` before the end), ended or failed (`Player.failure` says why).
    case state(ItemState)
    /// Seconds of media played (audio clock when there is audio), at most
    /// ten a second, and once after every seek; `Player.currentPosition` is
    /// always exact.
    case position(Double)
    /// While buffering: how full the buffer is, 0...1 (at most ten a second).
    case buffered(Double)
}

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

/// What a player reads: a file, or a byte source (a download in progress).
public enum MediaInput: Sendable {
    case file(String)
    case source(any ByteSource)
}

/// Options of a playback.
public struct PlaybackOptions: Sendable {
    public var clock = PlaybackClock.realTime
    public var audio = true
    public var video = true
    /// Media time to start at, in seconds.
    public var start: Double = 0
    public init() {}
}

/// Counters a playback keeps, for `--stats` and the benchmarks.
public struct PlaybackStatistics: Sendable {
    public var framesPresented = 0
    /// Frames decoded but skipped because they were late (display sinks only).
    public var framesDropped = 0
    /// Largest |video time − audio clock| at presentation, in seconds, while
    /// an audio device was the master clock.
    public var maximumDrift: Double = 0

    public init() {}
}

/// Plays one file, ffplay's way but without polling: a reader thread fills
/// bounded packet queues, one decoder thread per stream empties them, audio
/// goes to the audio sink (a device ring paces itself) and decoded pictures
/// wait in a small frame queue until the presenter thread shows them against
/// the master clock: the audio device when there is audio, else the system
/// clock. Every wait is on one condition: paused or idle costs no CPU.
///
/// Pause stops the device and the clocks; the threads block once their
/// queues are full. Resume re-bases the clocks, so playback continues from
/// the next sample with no gap, no repeat and no jump. A seek bumps a serial
/// number: everything queued before it is dropped, decoders are flushed, and
/// output before the target time is trimmed, so a seek lands exactly.
public final class Player: @unchecked Sendable {
    public let path: String
    /// Where the bytes come from when not a file (a download in progress).
    let source: (any ByteSource)?
    let options: PlaybackOptions
    let audioSink: (any AudioSink)?
    /// Set once on the reader thread, before the presenter starts.
    private(set) var videoSink: (any VideoSink)?
    private let makeVideoSink: (@Sendable (MediaInfo, Player) -> (any VideoSink)?)?

    /// Guards everything below: one lock for the whole pipeline keeps the
    /// waits simple and deadlock-free (a few hundred operations a second).
    let condition = NSCondition()
    var state: ItemState = .idle
    var pauseRequested = false
    var stopRequested = false
    var info: MediaInfo?
    var statistics = PlaybackStatistics()
    /// Unbounded, so no state change is ever dropped; position events are
    /// rate-limited at the source (publishPosition).
    private let subscribers = Broadcaster<PlayerEvent>()
    private var lastPositionEvent: Double = 0

    // Pipeline (see Player+Reader, Player+Audio, Player+Video).
    var serial = 0
    /// A seek the reader has yet to carry out.
    var pendingSeek: Double?
    /// Media time the current serial starts at: output before it is trimmed.
    var serialStart: Double
    var audioQueue: PacketQueue?
    var videoQueue: PacketQueue?
    var frames: [QueuedFrame] = []
    var audioDone = false
    var videoDone = false
    var runningWorkers = 0
    /// The first error a decoder thread met; it ends playback.
    var workerFailure: String?
    /// The reader waits for bytes from the source (a download).
    var inputWaiting = false
    /// Playback failed because the source did (a download), not the media.
    var inputFailed = false
    /// The reader has queued the end of the file.
    var inputEnded = false
    /// Output is held until enough is buffered (see `secondsUntilOutputRunsDry`).
    var buffering = false
    /// `stop()` was called before playback ended (a picture held on screen
    /// included): it ends as stopped, not ended.
    var stoppedEarly = false
    /// Why playback failed, once it has.
    var failureMessage: String?
    private var lastBufferedEvent: Double = 0

    // Clocks.
    /// Media time `t` plays at wall time `clockOrigin + t` (re-based on
    /// resume and seek); set when the first output is due.
    var clockOrigin: Double = 0
    var clockStarted = false
    var pausedAt: Double?
    var virtualNow: Double = 0
    /// Where the audio device's played-seconds counter stood at a media time:
    /// the audio clock is `media + (played − played at base)`.
    var audioClockBase: (media: Double, played: Double)? {
        didSet { deviceClockHigh = -.infinity }
    }
    /// The furthest the device clock has read since `audioClockBase` was set.
    var deviceClockHigh = -Double.infinity
    /// Audio written since the current serial started, in sample frames.
    var audioFramesWritten = 0
    var audioSampleRate = 0
    /// Media time reached by the video (last frame presented).
    var videoPosition: Double
    /// The presenter waits for this frame time (virtual clock bookkeeping).
    var videoWaitingFor: Double?
    var position: Double

    public convenience init(path: String, audioSink: (any AudioSink)?, videoSink: (any VideoSink)?, options: PlaybackOptions = PlaybackOptions()) {
        var factory: (@Sendable (MediaInfo, Player) -> (any VideoSink)?)?
        if let videoSink { factory = { _, _ in videoSink } }
        self.init(path: path, audioSink: audioSink, options: options, makeVideoSink: factory)
    }

    /// `makeVideoSink` is called once the file is open and known to hold
    /// video (a window needs the picture's rotation; a headless machine
    /// returns nil and the audio plays alone).
    public convenience init(
        path: String, audioSink: (any AudioSink)?, options: PlaybackOptions = PlaybackOptions(),
        makeVideoSink: (@Sendable (MediaInfo, Player) -> (any VideoSink)?)?
    ) {
        self.init(input: .file(path), audioSink: audioSink, options: options, makeVideoSink: makeVideoSink)
    }

    /// A byte source (a download in progress, say) plays as soon as the
    /// demuxer has what it needs, and buffers by itself when it is slower
    /// than the media.
    public init(
        input: MediaInput, audioSink: (any AudioSink)?, options: PlaybackOptions = PlaybackOptions(),
        makeVideoSink: (@Sendable (MediaInfo, Player) -> (any VideoSink)?)?
    ) {
        switch input {
        case let .file(path):
            self.path = path
            source = nil
        case let .source(source):
            path = source.name
            self.source = source
        }
        self.audioSink = audioSink
        self.makeVideoSink = makeVideoSink
        self.options = options
        let start = max(options.start, 0)
        serialStart = start
        videoPosition = start
        position = start
        virtualNow = start
    }

    public var currentState: ItemState { condition.withLock { state } }
    /// Why playback failed (state `failed`).
    public var failure: String? { condition.withLock { failureMessage } }
    public var currentPosition: Double { condition.withLock { currentPositionLocked() } }
    public var currentStatistics: PlaybackStatistics { condition.withLock { statistics } }
    public var mediaInfo: MediaInfo? { condition.withLock { info } }
    /// Whether a failure was the source's (a download failed), not the media's.
    public var failedForInput: Bool { condition.withLock { inputFailed } }
    /// While buffering, how full the buffer is (0...1).
    public var bufferFill: Double? { condition.withLock { buffering ? bufferFillLocked() : nil } }

    /// Events from now on; what is known already (the file's info, the
    /// current state) first, so a late subscriber misses nothing it needs.
    public func events() -> AsyncStream<PlayerEvent> {
        condition.withLock {
            var known: [PlayerEvent] = info.map { [.opened($0)] } ?? []
            known.append(.state(state))
            return subscribers.subscribe(replaying: known)
        }
    }

    /// Starts playback on threads of its own.
    public func play() {
        let thread = Thread { [self] in runReader() }
        thread.name = "mediaplay.read"
        thread.start()
    }

    /// Pauses at once: the device stops pulling samples and the clocks stop;
    /// nothing more is written to a file sink.
    public func pause() {
        condition.withLock {
            guard !state.isFinal, !pauseRequested else { return }
            pauseRequested = true
            if state == .playing || state == .buffering { enterPausedState() }
            // Inside the lock, so the device's running matches the state
            // whatever order pause, resume and buffering come in (the device
            // callback never takes this lock).
            if !buffering { audioSink?.pause() }
            condition.broadcast()
        }
    }

    /// Resumes at once, the device too (unless it is buffering).
    public func resume() {
        condition.withLock {
            guard pauseRequested, !state.isFinal else { return }
            pauseRequested = false
            if state == .paused { leavePausedState() }
            if !buffering { audioSink?.resume() }
            condition.broadcast()
        }
    }

    public func toggle() {
        if condition.withLock({ pauseRequested }) { resume() } else { pause() }
    }

    /// Ends playback: what a device still holds is dropped.
    public func stop() {
        condition.withLock {
            if !state.isFinal { stoppedEarly = true }
            stopRequested = true
            audioSink?.interrupt()
            condition.broadcast()
        }
        // After the flag: the reader's cancelled wait then reads as this
        // stop, not as a failed download.
        source?.interrupt()
        videoSink?.dismiss()
    }

    /// Moves to `seconds` of media time (clamped to the file), exactly:
    /// output starts at that time, paused or not.
    public func seek(to seconds: Double) {
        condition.withLock {
            guard !state.isFinal else { return }
            var target = max(seconds, 0)
            if let duration = info?.duration { target = min(target, duration) }
            serial += 1
            pendingSeek = target
            serialStart = target
            audioQueue?.removeAll()
            videoQueue?.removeAll()
            frames.removeAll()
            audioDone = false
            videoDone = false
            inputEnded = false
            audioFramesWritten = 0
            videoPosition = target
            position = target
            videoWaitingFor = nil
            audioClockBase = nil
            let now = Self.now()
            clockOrigin = now - target
            if pausedAt != nil { pausedAt = now }
            virtualNow = target
            // Inside the lock: the audio thread cannot reach the new serial
            // (and clear this) before it is set.
            audioSink?.interrupt()
            subscribers.send(.position(target))
            condition.broadcast()
        }
    }

    public func seek(by seconds: Double) {
        seek(to: currentPosition + seconds)
    }

    /// Virtual clock: lets `seconds` of media play, as fast as decoding
    /// allows, and returns once they have (or playback paused or ended).
    public func advanceVirtualClock(by seconds: Double) {
        condition.withLock {
            guard options.clock == .virtual, !pauseRequested, !state.isFinal else { return }
            // The file must be open before "caught up" means anything.
            while info == nil && !state.isFinal { condition.wait() }
            virtualNow += seconds
            condition.broadcast()
            while !state.isFinal && !pauseRequested && !caughtUpWithVirtualClock() { condition.wait() }
        }
    }

    /// Blocks until playback ends or fails; returns the final state.
    @discardableResult
    public func waitUntilFinished() -> ItemState {
        condition.withLock {
            while !state.isFinal { condition.wait() }
            return state
        }
    }

    // MARK: - With `condition` held

    func enterPausedState() {
        // Where the listener is (the device may have played on since the
        // last position was recorded, past the decoder's end even).
        position = currentPositionLocked()
        state = .paused
        holdClock()
        publish(.state(.paused))
    }

    func leavePausedState() {
        state = buffering ? .buffering : .playing
        releaseClock()
        publish(.state(state))
    }

    /// Stops the system clock (a pause, or buffering).
    private func holdClock() {
        if pausedAt == nil { pausedAt = Self.now() }
    }

    /// Re-bases the system clock by the time it stood still, once neither a
    /// pause nor buffering holds it; the audio clock needs nothing, as the
    /// device's counter stood still too.
    private func releaseClock() {
        guard !pauseRequested, !buffering, let pausedAt else { return }
        clockOrigin += Self.now() - pausedAt
        self.pausedAt = nil
    }

    // MARK: Buffering (with `condition` held)

    /// A decoder found its queue empty while the reader waits for the
    /// network: seconds until what was decoded has played out (a device
    /// holds up to a second of audio ahead), 0 when it is about to; nil when
    /// buffering does not apply. Only real-time playback buffers.
    func secondsUntilOutputRunsDry() -> Double? {
        guard options.clock == .realTime, inputWaiting, !inputEnded, !buffering, state == .playing else { return nil }
        // About one device buffer: hold the output only when the next pull
        // would find nothing. Earlier is worse: right after a start or a seek
        // a few packets are all there is, and the next are usually on the
        // way; holding then would cost the second that refilling takes.
        let margin = 0.025
        if audioActive {
            // Written to the sink, not yet heard.
            return max(0, audioPosition - currentPositionLocked() - margin)
        }
        guard let last = frames.last(where: { $0.serial == serial && $0.frame != nil }) else { return 0 }
        return max(0, last.time - systemClock() - margin)
    }

    /// Holds the output (device, clocks) until enough is buffered: a stall,
    /// not a stutter, and A/V stay in step because both follow the held clock.
    func startBuffering() {
        buffering = true
        position = currentPositionLocked()
        state = .buffering
        holdClock()
        audioSink?.pause()
        publish(.state(.buffering))
        lastBufferedEvent = 0
        publishBufferFill()
    }

    /// After each packet queued: resume once every stream has about a
    /// second ahead (ffplay's "enough"), the memory cap is reached, or the
    /// file's end is queued.
    func stopBufferingIfFilled() {
        guard buffering else { return }
        let bytes = (audioQueue?.bytes ?? 0) + (videoQueue?.bytes ?? 0)
        let filled = inputEnded || bytes > 15 << 20 || ((audioQueue?.hasEnough ?? true) && (videoQueue?.hasEnough ?? true))
        guard filled else {
            publishBufferFill()
            return
        }
        buffering = false
        if pauseRequested { return }  // stays paused; resume() starts the device
        state = .playing
        releaseClock()
        audioSink?.resume()
        publish(.state(.playing))
    }

    func bufferFillLocked() -> Double {
        let audio = audioQueue.map { min(1, $0.seconds) } ?? 1
        let video = videoQueue.map { min(1, $0.seconds) } ?? 1
        return min(audio, video)
    }

    private func publishBufferFill() {
        let now = Self.now()
        guard now - lastBufferedEvent >= 0.1 else { return }
        lastBufferedEvent = now
        publish(.buffered(bufferFillLocked()))
    }

    /// The source started or stopped waiting for bytes.
    func setInputWaiting(_ waiting: Bool) {
        condition.withLock {
            inputWaiting = waiting
            condition.broadcast()
        }
    }

    /// Called on the reader thread once the file is open, before any
    /// thread that uses the sink starts.
    func openVideoSink(for info: MediaInfo) {
        guard info.hasVideo, options.video else { return }
        videoSink = makeVideoSink?(info, self)
    }

    func setState(_ new: ItemState) {
        condition.withLock {
            state = new
            publish(.state(new))
            condition.broadcast()
        }
        if new.isFinal { subscribers.finish() }
    }

    func publish(_ event: PlayerEvent) {
        subscribers.send(event)
    }

    /// Media time reached by the audio (written to the sink).
    var audioPosition: Double {
        serialStart + (audioSampleRate > 0 ? Double(audioFramesWritten) / Double(audioSampleRate) : 0)
    }

    var audioActive: Bool { audioQueue != nil }
    var videoActive: Bool { videoQueue != nil }

    func caughtUpWithVirtualClock() -> Bool {
        let audioCaughtUp = !audioActive || audioDone || audioPosition >= virtualNow - 1e-9
        let videoCaughtUp = !videoActive || videoDone || (videoWaitingFor.map { $0 >= virtualNow - 1e-9 } ?? false)
        return audioCaughtUp && videoCaughtUp
    }

    /// Starts the system clock at `mediaTime` if nothing has yet.
    func startClockIfNeeded(at mediaTime: Double) {
        guard !clockStarted else { return }
        clockStarted = true
        clockOrigin = Self.now() - mediaTime
    }

    /// The media time now by the system clock (frozen while paused).
    func systemClock() -> Double {
        (pausedAt ?? Self.now()) - clockOrigin
    }

    /// The audio device's clock, while it is the master. While the device
    /// moves, the system clock is kept in step with it. Once the audio has
    /// run out, the device's counter stands still (a device buffer short of
    /// the end, even), and the system clock goes on from where the device
    /// last moved (ffplay's rule: the master clock goes on when the audio
    /// runs out), so video that outlasts the audio plays to its last frame.
    func audioDeviceClock() -> Double? {
        guard let base = audioClockBase, let played = audioSink?.playedSeconds else { return nil }
        let device = base.media + max(played - base.played, 0)
        if device > deviceClockHigh {
            deviceClockHigh = device
            clockStarted = true
            clockOrigin = Self.now() - device
            return device
        }
        // Standing still: paused (the system clock stands still too) or run out.
        guard audioDone, clockStarted else { return device }
        return max(device, systemClock())
    }

    func currentPositionLocked() -> Double {
        if state == .paused || state == .buffering || state.isFinal { return position }
        guard audioActive, let clock = audioDeviceClock() else { return position }
        // Past the audio's end only as far as a longer video has gone.
        return audioDone ? min(clock, max(audioPosition, videoPosition)) : clock
    }

    /// Records the position; an event goes out at most ten times a second of
    /// wall time, so untimed decoding cannot flood subscribers.
    func publishPosition(_ seconds: Double) {
        position = seconds
        let now = Self.now()
        guard now - lastPositionEvent >= 0.1 else { return }
        lastPositionEvent = now
        publish(.position(seconds))
    }

    /// Waits until `deadline` (monotonic seconds) or a broadcast.
    func wait(until deadline: Double) {
        let delay = deadline - Self.now()
        guard delay > 0 else { return }
        _ = condition.wait(until: Date(timeIntervalSinceNow: delay))
    }

    static func now() -> Double { MonotonicClock.seconds() }
}
