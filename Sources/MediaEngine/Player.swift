import CFFmpeg
import Foundation
import MediaInterfaces
import MediaModel

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
    /// An adaptive stream libavformat fetches itself, and its stop.
    let stream: RemoteStream?
    let streamInterruption = StreamInterruption()
    /// The sound from an input of its own (a file or a download), when
    /// pictures and sound come apart.
    let separateAudio: MediaInput?
    let options: PlaybackOptions
    let audioSink: (any AudioSink)?
    /// Set once on the reader thread, before the presenter starts.
    private(set) var videoSink: (any VideoSink)?
    private let makeVideoSink: (@Sendable (MediaInfo, Player) -> (any VideoSink)?)?

    /// Guards everything below: one lock for the whole pipeline keeps the
    /// waits simple and deadlock-free (a few hundred operations a second).
    let condition = NSCondition()
    var state: PlayerState = .starting
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
    /// The newest serial with a decoded picture queued.
    var firstPictureSerial = -1
    /// The newest serial whose sound may go to the device, and since when
    /// the sound of a serial waits for its first picture.
    var soundReleasedSerial = -1
    var soundWaitSince: (serial: Int, time: Double)?
    var runningWorkers = 0
    /// The first error a decoder thread met; it ends playback.
    var workerFailure: String?
    /// The reader waits for bytes from the source (a download).
    var inputWaiting = false
    /// Playback failed because the source did (a download), not the media.
    var inputFailed = false
    /// The reader has queued the end of the file.
    var inputEnded = false
    /// Whether output is held until enough is buffered (Player+Buffering).
    var buffer = BufferingState()
    /// `stop()` was called before playback ended (a picture held on screen
    /// included): it ends as stopped, not ended.
    var stoppedEarly = false
    /// Why playback failed, once it has.
    var failureMessage: String?
    var failureReason: String?
    /// The sleep timer's fade (media seconds), until its end is reached.
    var fadeOut: ClosedRange<Double>?
    /// Volume, mute and speed, read by the audio thread at every frame.
    var audioSettings: AudioSettings
    /// The file's ReplayGain tags, read when it opens.
    var replayGainTags = ReplayGainTags()
    /// The loudness gain in force (nil: none applies).
    var loudnessGain: AppliedGain?

    // Tracks and subtitles (Player+Tracks).
    var trackSettings: TrackSettings
    var audioTracks: [AudioTrackStream] = []
    /// Into `audioTracks`: the one playing.
    var audioTrackIndex: Int?
    /// The stream whose packets go to the audio decoder.
    var currentAudioStream: Int32?
    /// An audio track the reader is to switch to.
    var pendingAudioSwitch: Int32?
    /// The new track's decoder, for the audio thread to take at its next serial.
    var audioDecoderSwap: Decoder?
    var subtitleSources: [SubtitleSource] = []
    /// Into `subtitleSources`: the track chosen (shown unless hidden).
    var subtitleIndex: Int?
    var subtitlesVisible = true
    /// The chosen track's cues, read ahead by its loader.
    var subtitleTimeline: SubtitleTimeline?
    /// The chosen text track in libass, when pictures get it drawn in.
    var subtitleAss: AssTrack?
    /// Bumped at each change of track: loaders and burners of an earlier one stop.
    var subtitleGeneration = 0
    /// The text last announced (`PlayerEvent.subtitle`).
    var shownSubtitle: String?
    /// Why a subtitle file given to the player was left out, if one was.
    var subtitleFileFailure: String?
    /// The speed of the current serial: a change of speed starts a new
    /// serial where playback stands (see `setAudioSettings`), so that every clock
    /// runs at one rate within a serial.
    var serialSpeed: Double

    // Clocks.
    var masterClock = MasterClock()
    /// How far the virtual clock lets media play.
    var virtualNow: Double = 0
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
        var main = input
        if case let .separate(video, audio) = input {
            main = video
            separateAudio = audio
        } else {
            separateAudio = nil
        }
        switch main {
        case let .file(path):
            self.path = path
            source = nil
            stream = nil
        case let .source(source):
            path = source.name
            self.source = source
            stream = nil
        case let .stream(remote):
            path = remote.url.absoluteString
            source = nil
            stream = remote
        case .separate:
            // Never nested: the pictures' input alone is read.
            path = "media"
            source = nil
            stream = nil
        }
        self.audioSink = audioSink
        self.makeVideoSink = makeVideoSink
        self.options = options
        // A start from a saved position, a script or the command line: a time in the item.
        let start = CheckedNumber.position(options.start)
        audioSettings = options.settings
        trackSettings = options.tracks
        // The volume at once; the loudness gain once the file's tags are read.
        audioSink?.setGain(Self.outputGain(options.settings, nil))
        serialSpeed = options.settings.speed
        masterClock.setInitialRate(options.settings.speed)
        serialStart = start
        videoPosition = start
        position = start
        virtualNow = start
    }

    public var currentState: PlayerState { condition.withLock { state } }
    /// Why playback failed (state `failed`).
    public var failure: String? { condition.withLock { failureMessage } }

    /// The failure's reason alone ("no audio or video stream"), without
    /// the file the engine opened: the session names the item itself.
    public var failureReasonOnly: String? { condition.withLock { failureMessage == nil ? nil : failureReason ?? failureMessage } }
    public var currentPosition: Double { condition.withLock { currentPositionLocked() } }
    public var currentStatistics: PlaybackStatistics { condition.withLock { statistics } }
    public var mediaInfo: MediaInfo? { condition.withLock { info } }
    /// The loudness gain applied (nil: none), once the file is open.
    public var appliedGain: AppliedGain? { condition.withLock { loudnessGain } }
    /// Whether a failure was the source's (a download failed), not the media's.
    public var failedForInput: Bool { condition.withLock { inputFailed } }
    /// While buffering, how full the buffer is (0...1).
    public var bufferFill: Double? { condition.withLock { buffer.isActive ? bufferFillLocked() : nil } }

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

    /// The sleep timer's end: the sound fades out over `range` (media
    /// seconds) and the player pauses itself at its end, on that sample,
    /// its position kept; nil cancels a fade not yet over.
    public func setFadeOut(_ range: ClosedRange<Double>?) {
        condition.withLock {
            fadeOut = range
            condition.broadcast()
        }
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
            if !buffer.isActive { audioSink?.pause() }
            condition.broadcast()
        }
    }

    /// Resumes at once, the device too (unless it is buffering).
    public func resume() {
        condition.withLock {
            guard pauseRequested, !state.isFinal else { return }
            pauseRequested = false
            if state == .paused { leavePausedState() }
            if !buffer.isActive { audioSink?.resume() }
            condition.broadcast()
        }
    }

    /// Volume and mute: a device applies them as it plays (heard within its
    /// buffer); a recording from the next decoded frame on. A new speed
    /// restarts the output exactly where playback stands (a seek there).
    public func setAudioSettings(_ settings: AudioSettings) {
        let newSpeed = condition.withLock {
            defer {
                audioSettings = settings
                chooseLoudnessGainLocked()
                audioSink?.setGain(Self.outputGain(settings, loudnessGain))
            }
            return audioSettings.speed != settings.speed && !state.isFinal
        }
        // The sound goes on at the new speed at once: it does not wait for
        // the picture there, as a seek's does.
        if newSpeed { seek(to: currentPosition, soundWaitsForPicture: false) }
    }

    /// Whether another item follows this one (see `AudioSink.handOnAtEnd`).
    public func setFollowed(_ followed: Bool) {
        audioSink?.handOnAtEnd(followed)
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
        if case let .source(sound)? = separateAudio { sound.interrupt() }
        streamInterruption.interrupt()
        videoSink?.dismiss()
    }

    /// Moves to `seconds` of media time (clamped to the file), exactly:
    /// output starts at that time, paused or not. The sound there waits for
    /// the picture there (a second at most), unless `soundWaitsForPicture`
    /// is false.
    public func seek(to seconds: Double) {
        seek(to: seconds, soundWaitsForPicture: true)
    }

    func seek(to seconds: Double, soundWaitsForPicture: Bool) {
        condition.withLock {
            guard !state.isFinal else { return }
            let target = CheckedNumber.position(seconds, within: info?.duration)
            serial += 1
            if !soundWaitsForPicture { soundReleasedSerial = serial }
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
            // A new speed takes effect here: the serial plays at one speed.
            serialSpeed = audioSettings.speed
            masterClock.seek(to: target, now: Self.now(), rate: serialSpeed)
            virtualNow = target
            // Inside the lock: the audio thread cannot reach the new serial
            // (and clear this) before it is set.
            audioSink?.interrupt()
            subscribers.send(.position(target))
            refreshSubtitleLocked(at: target)
            condition.broadcast()
        }
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
    public func waitUntilFinished() -> PlayerState {
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
        state = buffer.isActive ? .buffering : .playing
        releaseClock()
        publish(.state(state))
    }

    /// Stops the clock (a pause, or buffering).
    func holdClock() {
        masterClock.hold(now: Self.now())
    }

    /// Lets the clock go on, once neither a pause nor buffering holds it.
    func releaseClock() {
        guard !pauseRequested, !buffer.isActive else { return }
        masterClock.release(now: Self.now())
    }

    /// Called on the reader thread once the file is open, before any
    /// thread that uses the sink starts.
    func openVideoSink(for info: MediaInfo) {
        guard info.hasVideo, options.video else { return }
        videoSink = makeVideoSink?(info, self)
    }

    func setState(_ new: PlayerState) {
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
        serialStart + (audioSampleRate > 0 ? Double(audioFramesWritten) / Double(audioSampleRate) * serialSpeed : 0)
    }

    var audioActive: Bool { audioQueue != nil }
    var videoActive: Bool { videoQueue != nil }

    func caughtUpWithVirtualClock() -> Bool {
        // Within one output sample: the next one would pass the clock.
        let oneSample = audioSampleRate > 0 ? serialSpeed / Double(audioSampleRate) : 0
        let audioCaughtUp = !audioActive || audioDone || audioPosition >= virtualNow - oneSample + 1e-9
        let videoCaughtUp = !videoActive || videoDone || (videoWaitingFor.map { $0 >= virtualNow - 1e-9 } ?? false)
        return audioCaughtUp && videoCaughtUp
    }

    /// Starts the clock at `mediaTime` if nothing has yet.
    func startClockIfNeeded(at mediaTime: Double) {
        masterClock.start(at: mediaTime, now: Self.now())
    }

    /// The media time now by the system clock (frozen while paused).
    func systemClock() -> Double {
        masterClock.system(now: Self.now())
    }

    /// The audio device's clock, while it is the master (see `MasterClock`):
    /// video that outlasts the audio plays to its last frame.
    func audioDeviceClock() -> Double? {
        masterClock.device(played: audioSink?.playedSeconds, audioDone: audioDone, now: Self.now())
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
        refreshSubtitleLocked(at: seconds)
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
