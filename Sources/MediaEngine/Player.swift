import CFFmpeg
import Foundation

/// What a player is doing.
public enum PlayerState: Sendable, Equatable {
    case loading
    case playing
    case paused
    case ended
    case failed(String)
}

/// What the opened file holds, as published once playback starts.
public struct MediaInfo: Sendable, Equatable {
    public var hasAudio: Bool
    public var hasVideo: Bool
    /// Seconds, when the container says.
    public var duration: Double?
}

/// Events a player publishes, in order.
public enum PlayerEvent: Sendable, Equatable {
    /// The file is open: what it holds (whether or not every stream is played).
    case opened(MediaInfo)
    case state(PlayerState)
    /// Seconds of media played (audio clock when there is audio), at most
    /// ten a second; `Player.currentPosition` is always exact.
    case position(Double)
}

/// Options of a playback.
public struct PlaybackOptions: Sendable {
    /// Run as fast as decoding allows (only with file or null sinks).
    public var untimed = false
    public var audio = true
    public var video = true
    public init() {}
}

/// Plays one file to an audio and a video sink: a decode thread that reads
/// packets, decodes them and hands frames to the sinks, paced against the
/// master clock (the audio position when there is audio, else wall time).
///
/// Pause blocks the decode thread on a condition (no CPU) and stops the
/// clock; resume re-bases the clock, so playback continues from the next
/// sample with no gap, no repeat and no jump.
public final class Player: @unchecked Sendable {
    public let path: String
    private let options: PlaybackOptions
    private let audioSink: (any AudioSink)?
    private let videoSink: (any VideoSink)?

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var state: PlayerState = .loading
    private var pauseRequested = false
    private var stopRequested = false
    private var position: Double = 0
    /// Monotonic time at which media time 0 plays (re-based on resume).
    private var clockOrigin: Double = 0
    private var pausedAt: Double?
    private var info: MediaInfo?
    private var lastPositionEvent: Double = 0
    private var continuations: [Int: AsyncStream<PlayerEvent>.Continuation] = [:]
    private var nextSubscriber = 0

    public init(path: String, audioSink: (any AudioSink)?, videoSink: (any VideoSink)?, options: PlaybackOptions = PlaybackOptions()) {
        self.path = path
        self.audioSink = audioSink
        self.videoSink = videoSink
        self.options = options
    }

    public var currentState: PlayerState { condition.withLock { state } }
    public var currentPosition: Double { condition.withLock { position } }

    /// Events from now on; what is known already (the file's info, the
    /// current state) first, so a late subscriber misses nothing it needs.
    public func events() -> AsyncStream<PlayerEvent> {
        // Unbounded, so no state change is ever dropped; position events are
        // rate-limited at the source (publishPosition).
        let (stream, continuation) = AsyncStream.makeStream(of: PlayerEvent.self, bufferingPolicy: .unbounded)
        condition.withLock {
            if let info { continuation.yield(.opened(info)) }
            continuation.yield(.state(state))
            if state == .ended || { if case .failed = state { return true }; return false }() {
                continuation.finish()
                return
            }
            continuations[nextSubscriber] = continuation
            nextSubscriber += 1
        }
        return stream
    }

    /// Starts playback on a thread of its own.
    public func play() {
        let thread = Thread { [self] in run() }
        thread.name = "mediaplay.decode"
        thread.start()
    }

    /// Pauses at once. A device stops pulling samples now (its ring may hold a
    /// second or more), so the player is paused now; with file sinks it is
    /// paused when the decode thread parks at its next turn, after which
    /// nothing more is written.
    public func pause() {
        let changed = condition.withLock {
            guard (state == .playing || state == .loading) && !pauseRequested else { return false }
            pauseRequested = true
            condition.broadcast()
            return true
        }
        guard changed else { return }
        audioSink?.pause()
        if audioSink?.playedSeconds != nil { condition.withLock { enterPausedState() } }
    }

    /// Resumes at once, the device too: the decode thread may be waiting for
    /// ring space that only a playing device frees.
    public func resume() {
        let changed = condition.withLock {
            guard pauseRequested else { return false }
            pauseRequested = false
            if state == .paused { leavePausedState() }
            condition.broadcast()
            return true
        }
        if changed { audioSink?.resume() }
    }

    /// With `condition` held.
    private func enterPausedState() {
        guard state != .paused else { return }
        state = .paused
        pausedAt = Self.now()
        for continuation in continuations.values { continuation.yield(.state(.paused)) }
        condition.broadcast()
    }

    /// With `condition` held: re-base the clock by the time spent paused.
    private func leavePausedState() {
        if let pausedAt { clockOrigin += Self.now() - pausedAt }
        pausedAt = nil
        state = .playing
        for continuation in continuations.values { continuation.yield(.state(.playing)) }
        condition.broadcast()
    }

    public func toggle() {
        if condition.withLock({ pauseRequested }) { resume() } else { pause() }
    }

    public func stop() {
        condition.withLock {
            stopRequested = true
            condition.broadcast()
        }
    }

    /// Blocks until playback ends or fails; returns the final state.
    @discardableResult
    public func waitUntilFinished() -> PlayerState {
        condition.withLock {
            while !isFinal(state) { condition.wait() }
            return state
        }
    }

    private func isFinal(_ state: PlayerState) -> Bool {
        if case .failed = state { return true }
        return state == .ended
    }

    // MARK: - Decode thread

    private func setState(_ new: PlayerState) {
        condition.withLock {
            state = new
            for continuation in continuations.values {
                continuation.yield(.state(new))
                if isFinal(new) { continuation.finish() }
            }
            if isFinal(new) { continuations.removeAll() }
            condition.broadcast()
        }
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Honours pause and stop; in real time, waits until `mediaTime` is due.
    /// Returns false when playback should stop.
    private func waitForTurn(mediaTime: Double?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopRequested { return false }
            if pauseRequested {
                enterPausedState()
                condition.wait()
                continue
            }
            if state == .loading { leavePausedState() }
            guard !options.untimed, let mediaTime else { return true }
            let due = clockOrigin + mediaTime
            let wait = due - Self.now()
            if wait <= 0.001 { return true }
            _ = condition.wait(until: Date(timeIntervalSinceNow: wait))
        }
    }

    /// Records the position for `currentPosition`; an event goes out at most
    /// ten times a second of wall time, so untimed decoding cannot flood
    /// subscribers (and state events, which are never dropped, stay few).
    private func publishPosition(_ seconds: Double) {
        condition.withLock {
            position = seconds
            let now = Self.now()
            guard now - lastPositionEvent >= 0.1 else { return }
            lastPositionEvent = now
            for continuation in continuations.values { continuation.yield(.position(seconds)) }
        }
    }

    private func run() {
        do {
            try decodeLoop()
            // Stopped early: drop what a device still holds instead of playing it out.
            if condition.withLock({ stopRequested }) { audioSink?.discard() }
            try audioSink?.close()
            try videoSink?.close()
            setState(.ended)
        } catch let error as FFmpegError {
            try? audioSink?.close()
            try? videoSink?.close()
            setState(.failed(error.description))
        } catch {
            try? audioSink?.close()
            try? videoSink?.close()
            setState(.failed("\(error)"))
        }
    }

    private func decodeLoop() throws {
        let demuxer = try Demuxer(path: path)
        let name = (path as NSString).lastPathComponent
        let opened = MediaInfo(hasAudio: demuxer.audioStreamIndex != nil, hasVideo: demuxer.videoStreamIndex != nil, duration: demuxer.duration)
        condition.withLock {
            info = opened
            for continuation in continuations.values { continuation.yield(.opened(opened)) }
        }
        let audioIndex = options.audio && audioSink != nil ? demuxer.audioStreamIndex : nil
        let videoIndex = options.video && videoSink != nil ? demuxer.videoStreamIndex : nil
        let audioDecoder = try audioIndex.map { index throws(FFmpegError) in try Decoder(stream: demuxer.stream(index), name: name) }
        let videoDecoder = try videoIndex.map { index throws(FFmpegError) in try Decoder(stream: demuxer.stream(index), name: name) }
        if audioDecoder == nil && videoDecoder == nil {
            throw FFmpegError(context: "cannot play \(name)", message: "nothing to play with the chosen outputs")
        }
        var resampler: AudioResampler?
        var samplesPlayed: Int64 = 0
        var audioFormat: AudioFormat?
        let videoStart: Double = videoIndex.map { index in
            let stream = demuxer.stream(index)
            let start = stream.pointee.start_time
            return start == mp_av_nopts_value() ? 0 : Double(start) * stream.pointee.time_base.seconds
        } ?? 0

        condition.withLock { clockOrigin = Self.now() }

        func playAudio(_ frame: Frame) throws -> Bool {
            if resampler == nil {
                let f = frame.pointer
                let format = AudioFormat(sampleRate: Int(f.pointee.sample_rate), channels: Int(f.pointee.ch_layout.nb_channels))
                audioFormat = format
                resampler = AudioResampler(output: format)
                try audioSink?.open(format: format)
            }
            var keepGoing = true
            try resampler!.convert(frame) { samples in keepGoing = try emitAudio(samples) }
            return keepGoing
        }

        /// Hands converted samples to the sink: the one place audio is paced,
        /// written and counted, for decoded frames and the resampler's tail alike.
        func emitAudio(_ samples: UnsafeRawBufferPointer) throws -> Bool {
            guard let format = audioFormat else { return true }
            // A device paces itself (its ring fills up); files follow the wall clock.
            let devicePaced = audioSink?.playedSeconds != nil
            guard waitForTurn(mediaTime: devicePaced ? nil : Double(samplesPlayed) / Double(format.sampleRate)) else { return false }
            try audioSink?.write(samples)
            samplesPlayed += Int64(samples.count / format.bytesPerFrame)
            if let heard = audioSink?.playedSeconds {
                // The audio clock is master: video follows what was heard.
                condition.withLock { clockOrigin = Self.now() - heard }
                publishPosition(heard)
            } else {
                publishPosition(Double(samplesPlayed) / Double(format.sampleRate))
            }
            return true
        }

        func playVideo(_ frame: Frame, decoder: Decoder) throws -> Bool {
            let time = frame.timestamp.map { Double($0) * decoder.timeBase.seconds - videoStart } ?? 0
            // With audio, audio paces playback; video frames follow the same clock.
            guard waitForTurn(mediaTime: time) else { return false }
            let f = frame.pointer
            try videoSink?.present(frame, info: VideoFrameInfo(time: time, width: Int(f.pointee.width), height: Int(f.pointee.height)))
            if audioDecoder == nil { publishPosition(time) }
            return true
        }

        func drain(_ decoder: Decoder) throws -> Bool {
            while let frame = try decoder.receive() {
                let keepGoing = decoder.kind == AVMEDIA_TYPE_AUDIO ? try playAudio(frame) : try playVideo(frame, decoder: decoder)
                if !keepGoing { return false }
            }
            return true
        }

        let packet = Packet()
        while try demuxer.readPacket(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            let index = packet.pointer.pointee.stream_index
            let decoder = index == audioIndex ? audioDecoder : index == videoIndex ? videoDecoder : nil
            guard let decoder else { continue }
            while try !decoder.send(packet) {
                guard try drain(decoder) else { return }
            }
            guard try drain(decoder) else { return }
        }
        // End of file: drain the decoders and the resampler.
        for decoder in [audioDecoder, videoDecoder].compactMap({ $0 }) {
            _ = try decoder.send(nil)
            guard try drain(decoder) else { return }
        }
        try resampler?.flush { samples in _ = try emitAudio(samples) }
    }
}
