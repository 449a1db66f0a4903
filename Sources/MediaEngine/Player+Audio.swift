import CFFmpeg
import Foundation
import MediaModel

extension Player {
    /// Takes the next packet from a queue, waiting while it is empty (and
    /// starting to buffer when the input is slow and the output about to run
    /// dry); nil when playback stops.
    func nextPacket(_ queue: ReferenceWritableKeyPath<Player, PacketQueue?>) -> QueuedPacket? {
        condition.withLock {
            while true {
                if stopRequested { return nil }
                if let item = self[keyPath: queue]?.pop() {
                    condition.broadcast()  // the reader may read again
                    return item
                }
                // The queue is dry: if the input waits for the network, hold
                // the output just before what was decoded runs out.
                switch secondsUntilOutputRunsDry() {
                case nil: condition.wait()
                case let seconds? where seconds > 0: wait(until: Self.now() + seconds)
                case _?:
                    startBuffering()
                    condition.wait()
                }
            }
        }
    }

    /// A decoder thread met an error: playback ends with it.
    func fail(_ error: any Error) {
        condition.withLock {
            if workerFailure == nil { workerFailure = (error as? FFmpegError)?.description ?? "\(error)" }
            stopRequested = true
            audioSink?.interrupt()
            condition.broadcast()
        }
    }

    /// With `condition` held: while a pause is asked for or the player
    /// buffers, enters it and waits once; true when it waited (the caller
    /// looks at everything again).
    func waitWhilePaused() -> Bool {
        if buffer.isActive && !pauseRequested {
            condition.wait()
            return true
        }
        guard pauseRequested else { return false }
        if state != .paused { enterPausedState() }
        condition.wait()
        return true
    }

    /// With `condition` held: the first output of a playback moves it from
    /// idle to playing.
    func markPlaying() {
        if state == .starting {
            state = .playing
            publish(.state(.playing))
        }
    }

    /// The audio decoder thread: packets → frames → s16 → the audio sink.
    func runAudioDecoder(_ firstDecoder: Decoder, startTime: Double) {
        var decoder = firstDecoder
        var resampler: AudioResampler?
        var filter: AudioFilter?
        var mySerial = -1
        /// Output before this media time is trimmed (after a seek).
        var trimBefore: Double?
        let devicePaced = audioSink?.playedSeconds != nil
        let sinkGain = audioSink?.appliesGain == true
        do {
            while let item = nextPacket(\.audioQueue) {
                if item.serial != mySerial {
                    // Another audio track from this serial on (`audio-track`).
                    let swap = takeAudioDecoderSwap()
                    if let swap { decoder = swap }
                    if mySerial >= 0 {
                        if swap == nil { try decoder.reset() }
                        resampler = resampler.map { AudioResampler(output: $0.output) }
                        filter = nil
                        audioSink?.flush()
                    }
                    mySerial = item.serial
                    let newStart = condition.withLock {
                        if devicePaced { masterClock.followDevice(from: serialStart, played: audioSink?.playedSeconds ?? 0) }
                        return serialStart
                    }
                    trimBefore = newStart > 0 || item.serial > 0 ? newStart : nil
                }
                let emit = { [self] (samples: UnsafeRawBufferPointer, format: AudioFormat) throws -> Bool in
                    try emitAudio(samples, format: format, serial: mySerial, devicePaced: devicePaced)
                }
                func play(_ frame: Frame) throws -> Bool {
                    if resampler == nil {
                        let f = frame.pointer
                        let format = AudioFormat(sampleRate: Int(f.pointee.sample_rate), channels: Int(f.pointee.ch_layout.nb_channels))
                        if let problem = format.problem { throw problem }
                        resampler = AudioResampler(output: format)
                        try audioSink?.open(format: format)
                    }
                    let format = resampler!.output
                    // The frame's media time, when it has a timestamp.
                    let time = frame.timestamp.map { Double($0) * decoder.timeBase.seconds - startTime }
                    if options.clock == .realTime, let time {
                        guard try fillGap(before: time, format: format, emit) else { return false }
                    }
                    // The user's filters, the gain and the serial's speed,
                    // read once per frame; a device applies the gain itself.
                    let stage = condition.withLock { audioStageLocked(sinkAppliesGain: sinkGain) }
                    var skip = 0
                    if let trim = trimBefore, let time {
                        // Output samples: media seconds at the serial's speed.
                        skip = CheckedNumber.clamped((trim - time) / stage.speed * Double(format.sampleRate), to: 0...Int(Int32.max))
                    }
                    var keepGoing = true
                    func convert(_ frame: Frame) throws {
                        try resampler!.convert(frame) { samples in
                            let skipped = min(skip * format.bytesPerFrame, samples.count)
                            skip -= skipped / format.bytesPerFrame
                            guard skipped < samples.count, keepGoing else { return }
                            trimBefore = nil  // output began: the rest follows on
                            keepGoing = try emit(UnsafeRawBufferPointer(rebasing: samples[skipped...]), format)
                        }
                    }
                    // Through the filter stage unless it is the identity
                    // (then the output is ffmpeg's plain decoding).
                    if stage.isIdentity {
                        try convert(frame)
                    } else {
                        if filter == nil { filter = AudioFilter() }
                        try filter!.filter(frame, stage: stage, convert)
                    }
                    return keepGoing
                }
                guard try decode(item.packet, with: decoder, play) else { continue }
                if item.packet == nil {
                    if let resampler {
                        try filter?.flush { frame in
                            try resampler.convert(frame) { samples in _ = try emit(samples, resampler.output) }
                        }
                        try resampler.flush { samples in _ = try emit(samples, resampler.output) }
                    }
                    condition.withLock {
                        if mySerial == serial { audioDone = true }
                        condition.broadcast()
                    }
                }
            }
        } catch {
            fail(error)
        }
    }

    /// s16 samples faded out linearly over `range` (media seconds; the
    /// chunk starts at `from`, played at `speed`): the gain at a frame is
    /// the share of the fade still to come, as ffmpeg's `afade=t=out`
    /// (curve tri) computes it, applied the same way (truncated).
    static func fading(_ samples: UnsafeRawBufferPointer, format: AudioFormat, from start: Double, speed: Double, over range: ClosedRange<Double>) -> [Int16] {
        let channels = format.channels
        let rate = Double(format.sampleRate)
        let length = max(1, ((range.upperBound - range.lowerBound) / speed * rate).rounded())
        let fadeStart = ((range.lowerBound - start) / speed * rate).rounded()
        var output = [Int16](repeating: 0, count: samples.count / 2)
        for frame in 0..<(output.count / channels) {
            // Frames into the fade: before it, full gain.
            let into = Double(frame) - fadeStart
            let gain = into < 0 ? 1 : max(0, (length - into) / length)
            for channel in 0..<channels {
                let index = frame * channels + channel
                let sample = Int16(littleEndian: samples.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))
                output[index] = Int16(Double(sample) * gain)
            }
        }
        return output
    }

    /// Gaps in the audio shorter than this are left alone (rounding, codec
    /// priming); longer ones, up to a minute, are played as silence.
    static let audibleGap = 0.02

    /// In real time: when `time` is later than where the audio stands (a
    /// stream that starts after the video, or has a hole), plays silence up
    /// to it, so the audio clock stays on the media's timestamps and the
    /// picture stays in step. A recording (untimed or virtual clock) keeps
    /// exactly the decoded samples, as `ffmpeg -f s16le` writes them.
    private func fillGap(before time: Double, format: AudioFormat, _ emit: (UnsafeRawBufferPointer, AudioFormat) throws -> Bool) throws -> Bool {
        let (gap, speed) = condition.withLock { (time - audioPosition, serialSpeed) }
        guard gap > Self.audibleGap, gap <= 60 else { return true }
        // Media seconds, played at the serial's speed.
        let silence = [UInt8](repeating: 0, count: Int((gap / speed * Double(format.sampleRate)).rounded()) * format.bytesPerFrame)
        return try silence.withUnsafeBytes { try emit($0, format) }
    }

    /// Sends a packet (nil: end of stream) and hands every frame out to
    /// `play`; false when `play` asked to stop (a seek or stop came).
    func decode(_ packet: Packet?, with decoder: Decoder, _ play: (Frame) throws -> Bool) throws -> Bool {
        while try !decoder.send(packet) {
            while let frame = try decoder.receive() {
                guard try play(frame) else { return false }
            }
        }
        while let frame = try decoder.receive() {
            guard try play(frame) else { return false }
        }
        return true
    }

    /// Until when the serial's first sound waits for its first picture (nil:
    /// it need not). Sound and picture start together: a sound started at
    /// once ran ahead of the first picture by as long as the picture took
    /// (decoder, scaler, window), 25–30 ms at 1080p, the largest drift of a
    /// playback. A second at most, so a picture that never comes does not
    /// hold the sound.
    private func soundWaitDeadline(_ mySerial: Int) -> Double? {
        guard soundReleasedSerial < mySerial, videoActive, !videoDone, firstPictureSerial < mySerial else { return nil }
        if let since = soundWaitSince, since.serial == mySerial { return since.time + 1 }
        let now = Self.now()
        soundWaitSince = (mySerial, now)
        return now + 1
    }

    /// Hands samples to the sink when they are due: the one place audio is
    /// paced, written and counted. A device paces itself (its ring fills up);
    /// file sinks follow the system clock, the virtual clock, or nothing.
    /// Returns false when the samples belong to a serial that is over.
    private func emitAudio(_ samples: UnsafeRawBufferPointer, format: AudioFormat, serial mySerial: Int, devicePaced: Bool) throws -> Bool {
        var offset = 0
        while offset < samples.count {
            // The sleep timer's fade: where this chunk starts, and the frames left before the end.
            var fade: (range: ClosedRange<Double>, from: Double, speed: Double, framesLeft: Int)?
            let granted: Int? = condition.withLock {
                while true {
                    if stopRequested || serial != mySerial { return nil }
                    if waitWhilePaused() { continue }
                    if let range = fadeOut {
                        let left = Int(((range.upperBound - audioPosition) / serialSpeed * Double(format.sampleRate)).rounded())
                        if left <= 0 {
                            // The end: silence reached, the player pauses itself here.
                            fadeOut = nil
                            pauseRequested = true
                            if state == .playing { enterPausedState() }
                            if !buffer.isActive { audioSink?.pause() }
                            // Whoever waits on the player (a virtual clock's
                            // advance, the video thread) hears of the pause.
                            condition.broadcast()
                            continue
                        }
                        fade = (range, audioPosition, serialSpeed, left)
                    } else {
                        fade = nil
                    }
                    markPlaying()
                    switch options.clock {
                    case .untimed:
                        return samples.count - offset
                    case .virtual:
                        audioSampleRate = format.sampleRate
                        let frames = Int(((virtualNow - audioPosition) / serialSpeed * Double(format.sampleRate) + 1e-6).rounded(.down))
                        if frames > 0 { return min(frames * format.bytesPerFrame, samples.count - offset) }
                        condition.broadcast()  // an advanceVirtualClock caller may be waiting for this
                        condition.wait()
                    case .realTime:
                        if devicePaced {
                            if let deadline = soundWaitDeadline(mySerial), Self.now() < deadline {
                                wait(until: deadline)
                                continue
                            }
                            soundReleasedSerial = max(soundReleasedSerial, mySerial)
                            return samples.count - offset
                        }
                        startClockIfNeeded(at: audioPosition)
                        let due = masterClock.due(audioPosition)
                        if Self.now() >= due - 0.001 { return samples.count - offset }
                        wait(until: due)
                    }
                }
            }
            guard var allowed = granted else { return false }
            let chunk = UnsafeRawBufferPointer(rebasing: samples[offset..<offset + allowed])
            if let fade {
                allowed = min(allowed, fade.framesLeft * format.bytesPerFrame)
                let faded = Self.fading(UnsafeRawBufferPointer(rebasing: chunk[0..<allowed]), format: format, from: fade.from, speed: fade.speed, over: fade.range)
                try faded.withUnsafeBytes { try audioSink?.write($0) }
            } else {
                try audioSink?.write(chunk)
            }
            offset += allowed
            condition.withLock {
                guard serial == mySerial else { return }
                audioSampleRate = format.sampleRate
                audioFramesWritten += allowed / format.bytesPerFrame
                if devicePaced, let clock = audioDeviceClock() {
                    // Reading the device keeps the system clock in step with it.
                    publishPosition(clock)
                } else {
                    publishPosition(audioPosition)
                }
                condition.broadcast()
            }
        }
        return true
    }
}
