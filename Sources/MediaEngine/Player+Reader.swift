import CFFmpeg
import Foundation
import MediaInterfaces
import MediaModel

extension Player {
    /// The reader thread: opens the file, starts the decoder threads, then
    /// reads packets into the queues until the end (serving seeks on the
    /// way), waits for the streams to finish and closes the sinks.
    func runReader() {
        var demuxer: Demuxer?
        source?.onWait = { [weak self] waiting in self?.setInputWaiting(waiting) }
        if case let .source(sound)? = separateAudio { sound.onWait = { [weak self] waiting in self?.setInputWaiting(waiting) } }
        do throws(FFmpegError) {
            let opened: Demuxer
            if let source {
                opened = try Demuxer(source: source)
            } else if let stream {
                opened = try Demuxer(stream: stream, limits: options.variantLimits, video: options.video, interruption: streamInterruption)
            } else {
                opened = try Demuxer(path: path)
            }
            // The sound apart, when it plays: its own input, read beside the pictures'.
            switch options.audio ? separateAudio : nil {
            case let .file(path)?: opened.addAudio(from: try Demuxer(path: path))
            case let .source(sound)?: opened.addAudio(from: try Demuxer(source: sound))
            default: break
            }
            demuxer = opened
            try startPipeline(opened)
            try readPackets(opened)
            finish(failure: nil)
        } catch {
            // A stop interrupts a read that waits for the network: not a failure.
            let stopped = condition.withLock {
                if error.isInputFailure && !stopRequested { inputFailed = true }
                return stopRequested
            }
            condition.withLock { failureReason = error.message }
            finish(failure: stopped ? nil : error.description)
        }
        // The decoders use the demuxer's streams until `finish` has stopped them.
        withExtendedLifetime(demuxer) {}
    }

    /// Why a file has nothing for the outputs chosen, in the user's terms.
    static func nothingToPlay(_ info: MediaInfo, audioOn: Bool, videoOn: Bool) -> String {
        let what = info.isImage ? "a picture" : "a video"
        if info.hasVideo && videoOn { return "no window can open to show \(what) (no display)" }
        if info.hasVideo { return info.hasAudio ? "video and sound are both off" : "it is \(what), and video is off" }
        return "it has only sound, and sound is off"
    }

    private func startPipeline(_ demuxer: Demuxer) throws(FFmpegError) {
        let name = (path as NSString).lastPathComponent
        let opened = MediaInfo(
            hasAudio: demuxer.audioStreamIndex != nil, hasVideo: demuxer.videoStreamIndex != nil,
            isImage: demuxer.isStillImage, rotation: demuxer.rotation, duration: demuxer.duration, chapters: demuxer.chapters
        )
        openVideoSink(for: opened)
        openTracks(demuxer)
        let chosenAudio = condition.withLock { currentAudioStream }
        let audioIndex = options.audio && audioSink != nil ? chosenAudio : nil
        let videoIndex = options.video && videoSink != nil ? demuxer.videoStreamIndex : nil
        let audioDecoder = try audioIndex.map { index throws(FFmpegError) in try Decoder(stream: demuxer.stream(index), name: name, strict: false) }
        let videoDecoder = try videoIndex.map { index throws(FFmpegError) in
            // A picture is one frame: a damaged one is an error, not a half image.
            let stream = demuxer.stream(index)
            let threading = options.clock == .realTime ? Decoder.realTimeThreading(for: stream) : .throughput
            return try Decoder(stream: stream, name: name, strict: demuxer.isStillImage, threading: threading)
        }
        if audioDecoder == nil && videoDecoder == nil {
            throw FFmpegError(context: "cannot play \(name)", message: Self.nothingToPlay(opened, audioOn: options.audio && audioSink != nil, videoOn: options.video))
        }
        let start = demuxer.startTime
        let tags = demuxer.replayGainTags
        condition.withLock {
            info = opened
            // The file's tags decide the loudness gain, before its first sample.
            replayGainTags = tags
            chooseLoudnessGainLocked()
            audioSink?.setGain(Self.outputGain(audioSettings, loudnessGain))
            publish(.opened(opened))
            if let audioIndex { audioQueue = PacketQueue(timeBase: demuxer.stream(audioIndex).pointee.time_base) }
            if let videoIndex { videoQueue = PacketQueue(timeBase: demuxer.stream(videoIndex).pointee.time_base) }
            if serialStart > 0 { pendingSeek = serialStart }
            runningWorkers = (audioDecoder == nil ? 0 : 1) + (videoDecoder == nil ? 0 : 2)
        }
        let audioStart = demuxer.audioStartTime
        if let audioDecoder { spawn("mediaplay.audio") { [self] in runAudioDecoder(audioDecoder, startTime: audioStart) } }
        if let videoDecoder {
            spawn("mediaplay.video") { [self] in runVideoDecoder(videoDecoder, startTime: start) }
            spawn("mediaplay.present") { [self] in runPresenter() }
        }
    }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            body()
            condition.withLock {
                runningWorkers -= 1
                condition.broadcast()
            }
        }
        thread.name = name
        thread.start()
    }

    private enum ReaderTurn {
        case read(serial: Int)
        case seek(Double)
        /// To another audio track (`audio-track`).
        case switchAudio(Int32)
        case stop
        case finished
    }

    /// What the reader should do next; waits while the queues are full or,
    /// after the end of the file, until the streams finish or a seek comes.
    private func nextTurn(atEnd: Bool) -> ReaderTurn {
        condition.withLock {
            while true {
                if stopRequested { return .stop }
                if let index = pendingAudioSwitch {
                    pendingAudioSwitch = nil
                    return .switchAudio(index)
                }
                if let target = pendingSeek {
                    pendingSeek = nil
                    return .seek(target)
                }
                if atEnd {
                    let streamsDone = (!audioActive || audioDone) && (!videoActive || videoDone)
                    if streamsDone { return .finished }
                } else if needsPackets() {
                    return .read(serial: serial)
                }
                condition.wait()
            }
        }
    }

    /// ffplay's rule: read while under 15 MiB in all and some queue lacks
    /// its second of packets; a stream without packets never holds others up.
    private func needsPackets() -> Bool {
        let bytes = (audioQueue?.bytes ?? 0) + (videoQueue?.bytes ?? 0)
        if bytes > 15 << 20 { return false }
        return !(audioQueue?.hasEnough ?? true) || !(videoQueue?.hasEnough ?? true)
    }

    private func readPackets(_ demuxer: Demuxer) throws(FFmpegError) {
        let videoIndex = demuxer.videoStreamIndex
        var atEnd = false
        while true {
            switch nextTurn(atEnd: atEnd) {
            case .stop, .finished:
                return
            case let .seek(target):
                try demuxer.seek(to: target)
                atEnd = false
            case let .switchAudio(index):
                // The new track's decoder, for the audio thread to take at
                // the serial the switch's seek began (`changeTracks`).
                let name = (path as NSString).lastPathComponent
                let decoder = try Decoder(stream: demuxer.stream(index), name: name, strict: false)
                condition.withLock {
                    audioDecoderSwap = decoder
                    currentAudioStream = index
                    audioQueue = PacketQueue(timeBase: demuxer.stream(index).pointee.time_base)
                }
            case let .read(readSerial):
                let packet = Packet()
                let more = try demuxer.readPacket(into: packet)
                condition.withLock {
                    // A seek came while reading: this packet belongs before it.
                    guard readSerial == serial else { return }
                    if !more {
                        atEnd = true
                        inputEnded = true
                        audioQueue?.push(QueuedPacket(packet: nil, serial: serial))
                        videoQueue?.push(QueuedPacket(packet: nil, serial: serial))
                    } else {
                        let index = packet.pointer.pointee.stream_index
                        if index == currentAudioStream, audioQueue != nil {
                            audioQueue?.push(QueuedPacket(packet: packet, serial: serial))
                        } else if index == videoIndex, videoQueue != nil {
                            videoQueue?.push(QueuedPacket(packet: packet, serial: serial))
                        }
                    }
                    stopBufferingIfFilled()
                    condition.broadcast()
                }
            }
        }
    }

    /// The device plays what it holds (up to its handoff lead, see
    /// `AudioSink.handOnLead`) before the sink closes; the position moves on
    /// meanwhile, ten times a second, as while writing. A pause waits (no
    /// CPU); a stop ends it.
    private func playOut() {
        guard let sink = audioSink, sink.playedSeconds != nil else { return }
        condition.withLock {
            // The workers are stopped by now: only a user's stop ends this early.
            while !stoppedEarly {
                if pauseRequested {
                    condition.wait()
                    continue
                }
                let left = sink.queuedSeconds - sink.handOnLead
                // Played out, or the device is gone (it cannot drain).
                guard left > 0.001, sink.canPlayOut else { return }
                if let clock = audioDeviceClock() { publishPosition(min(clock, audioPosition)) }
                wait(until: Self.now() + min(0.1, left))
            }
        }
    }

    /// Stops the workers, closes the sinks and publishes the final state.
    private func finish(failure: String?) {
        let stopped = condition.withLock {
            let early = stopRequested || failure != nil
            stopRequested = true
            // Only an early stop cuts a device short; at the end it plays out.
            if early { audioSink?.interrupt() }
            condition.broadcast()
            while runningWorkers > 0 { condition.wait() }
            return early
        }
        // Stopped early: drop what a device still holds instead of playing it out.
        if stopped { audioSink?.discard() } else { playOut() }
        // Stopped while playing out: what is left is dropped, not handed on.
        if !stopped, condition.withLock({ stoppedEarly }) { audioSink?.discard() }
        // A picture stays on screen (and the player playing) until closed.
        if !stopped, condition.withLock({ info?.isImage == true && statistics.framesPresented > 0 }) {
            videoSink?.holdUntilDismissed()
        }
        var failure = failure ?? condition.withLock { workerFailure }
        do {
            try audioSink?.close()
            try videoSink?.close()
        } catch {
            failure = failure ?? "\(error)"
        }
        // Played out: the device has played every sample written, so that is
        // where an ended player stands (the last position recorded was at the
        // last write, up to a ring's worth earlier).
        // Stopped while it played out (a pause held it there): where the
        // listener was, not the end (that marked a paused item played).
        if !stopped { condition.withLock { if audioActive && !stoppedEarly { position = max(position, audioPosition) } } }
        let stoppedByUser = condition.withLock {
            failureMessage = failure
            // The subtitle track's cues and libass's track are let go with the item.
            subtitleTimeline = nil
            subtitleAss = nil
            return stoppedEarly
        }
        setState(failure != nil ? .failed : stoppedByUser ? .stopped : .ended)
    }
}
