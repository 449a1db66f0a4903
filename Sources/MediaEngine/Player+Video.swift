import CFFmpeg
import CLinux
import Foundation
import MediaModel

/// A decoded picture waiting for its time; nil frame: the stream ended.
struct QueuedFrame {
    let frame: Frame?
    let time: Double
    let serial: Int
}

extension Player {
    /// Decoded pictures kept ahead of the presenter (ffplay keeps three).
    static let frameQueueCapacity = 3

    /// The video decoder thread: packets → frames → the frame queue.
    func runVideoDecoder(_ decoder: Decoder, startTime: Double) {
        var mySerial = -1
        var trimBefore: Double?
        var lastTime: Double = 0
        let frameStep = decoder.frameDuration
        // A window or recording gets text subtitles drawn in by libass.
        let burns = !(videoSink?.drawsSubtitleText ?? true)
        var burning = SubtitleBurning(waits: options.clock != .realTime)
        do {
            if options.clock == .realTime {
                // Decoding is throughput, presenting and audio are deadlines:
                // on a busy machine the presenter should get a core the moment
                // a frame is due. Nice this thread (raising nice needs no
                // privilege); the codec threads the reopen makes inherit it.
                _ = mp_nice_this_thread(5)
                try decoder.reset()
            }
            while let item = nextPacket(\.videoQueue) {
                if item.serial != mySerial {
                    if mySerial >= 0 { try decoder.reset() }
                    mySerial = item.serial
                    let newStart = condition.withLock { serialStart }
                    trimBefore = newStart > 0 || item.serial > 0 ? newStart : nil
                }
                let serialOfPacket = mySerial
                let keepGoing = try decode(item.packet, with: decoder) { frame in
                    let time = frame.timestamp.map { Double($0) * decoder.timeBase.seconds - startTime } ?? lastTime + frameStep
                    lastTime = time
                    if let trim = trimBefore {
                        // A seek lands on the first picture at or after its target.
                        if time < trim - 1e-6 { return true }
                        trimBefore = nil
                    }
                    let shown = burns ? burning.draw(into: frame, time: time, player: self, decoder: decoder, startTime: startTime) : frame
                    return enqueue(QueuedFrame(frame: shown, time: time, serial: serialOfPacket))
                }
                if keepGoing && item.packet == nil {
                    _ = enqueue(QueuedFrame(frame: nil, time: lastTime, serial: serialOfPacket))
                }
            }
        } catch {
            fail(error)
        }
    }

    /// Waits for room in the frame queue; false when the serial is over.
    private func enqueue(_ item: QueuedFrame) -> Bool {
        condition.withLock {
            while !stopRequested && serial == item.serial && frames.count >= Self.frameQueueCapacity {
                condition.wait()
            }
            guard !stopRequested && serial == item.serial else { return false }
            frames.append(item)
            firstPictureSerial = max(firstPictureSerial, item.serial)
            condition.broadcast()
            return true
        }
    }

    /// The presenter thread: shows each picture when the master clock
    /// reaches its time, and skips a late one when the next is due too (a
    /// display sink only: a file sink records every frame).
    func runPresenter() {
        let dropsLateFrames = videoSink?.dropsLateFrames ?? false
        let drawsText = videoSink?.drawsSubtitleText ?? false
        while let (frame, time) = nextFrameToPresent(dropsLateFrames: dropsLateFrames) {
            do {
                let f = frame.pointer
                var subtitle: String?
                if drawsText, let shown = condition.withLock({ shownTimelineLocked }) {
                    // Played by the clock, a subtitle not read yet waits for
                    // nothing; in virtual time or a recording none is missed.
                    if options.clock != .realTime { shown.timeline.waitUntilLoaded(time - shown.delay) }
                    subtitle = shown.timeline.text(at: time - shown.delay)
                }
                try videoSink?.present(frame, info: VideoFrameInfo(time: time, width: Int(f.pointee.width), height: Int(f.pointee.height), subtitle: subtitle))
            } catch {
                fail(error)
                return
            }
            condition.withLock {
                statistics.framesPresented += 1
                videoPosition = time
                // Video carries the position when there is no audio, or
                // once the audio has run out before it; while a device plays
                // the last audio written, its clock does (nothing is written
                // then to publish it).
                if !audioActive || (audioDone && time > audioPosition) {
                    publishPosition(time)
                } else if audioDone, let clock = audioDeviceClock() {
                    publishPosition(min(clock, audioPosition))
                }
            }
        }
    }

    /// Waits until the front frame is due and returns it; nil when playback stops.
    private func nextFrameToPresent(dropsLateFrames: Bool) -> (Frame, Double)? {
        condition.withLock { () -> (Frame, Double)? in
            while true {
                if stopRequested { return nil }
                guard let item = frames.first else {
                    condition.wait()
                    continue
                }
                if item.serial != serial {
                    frames.removeFirst()
                    condition.broadcast()
                    continue
                }
                guard let frame = item.frame else {
                    frames.removeFirst()
                    videoDone = true
                    condition.broadcast()
                    continue
                }
                if waitWhilePaused() { continue }
                markPlaying()
                switch options.clock {
                case .untimed:
                    break
                case .virtual:
                    if item.time >= virtualNow - 1e-9 {
                        videoWaitingFor = item.time
                        condition.broadcast()  // an advanceVirtualClock caller may be waiting for this
                        condition.wait()
                        continue
                    }
                case .realTime:
                    // One reading of the master clock per turn: the audio
                    // device while it plays, else the system clock.
                    let audio = audioDeviceClock()
                    if audio == nil { startClockIfNeeded(at: item.time) }
                    let clock = audio ?? systemClock()
                    let delay = item.time - clock
                    if delay > 0.001 {
                        // Media seconds, at the playback speed.
                        wait(until: Self.now() + delay / masterClock.rate)
                        continue
                    }
                    if dropsLateFrames, frames.count > 1 {
                        let next = frames[1]
                        if next.serial == serial, next.frame != nil, next.time <= clock {
                            frames.removeFirst()
                            statistics.framesDropped += 1
                            condition.broadcast()
                            continue
                        }
                    }
                    if let audio {
                        statistics.drift.add(abs(item.time - audio))
                    }
                }
                frames.removeFirst()
                videoWaitingFor = nil
                condition.broadcast()
                return (frame, item.time)
            }
        }
    }
}

/// The video decoder thread's subtitle burner: made for the track shown,
/// made again only when the track changes (a new delay or hiding it needs
/// no new one).
struct SubtitleBurning {
    /// libass for text, the overlay of canvases for pictures.
    private enum Burner {
        case text(SubtitleBurner)
        case bitmap(BitmapSubtitleBurner)

        func burn(_ frame: Frame, pts: Int64, timeBase: AVRational) throws(FFmpegError) -> Frame {
            switch self {
            case let .text(burner): return try burner.burn(frame, pts: pts, timeBase: timeBase)
            case let .bitmap(burner): return try burner.burn(frame, pts: pts, timeBase: timeBase)
            }
        }
    }

    private var burner: Burner?
    private var source: SubtitleSource?
    /// A track libass could not read is not tried again.
    private var failed: SubtitleSource?
    /// In a recording or virtual time a picture waits for its track to be read that far.
    let waits: Bool
    /// Where pictures with a subtitle drawn in are copied to.
    private let copies = FrameCopies()

    init(waits: Bool) {
        self.waits = waits
    }

    /// The picture with the subtitle at `time` drawn in, or `frame` itself
    /// when none is shown (or it cannot be drawn: the picture still plays).
    mutating func draw(into frame: Frame, time: Double, player: Player, decoder: Decoder, startTime: Double) -> Frame {
        guard let wanted = player.condition.withLock({ player.burnedSubtitleLocked }), wanted.source != failed else { return frame }
        // A text track drawn here, straight from libass, when the picture's format allows.
        if let ass = wanted.ass, AssBlend.supports(frame.pointer.pointee.format) {
            if waits { wanted.timeline?.waitUntilLoaded(time - wanted.delay) }
            return Self.drawn(frame, by: ass, pts: Self.pts(of: frame, time: time, delay: wanted.delay, decoder: decoder, startTime: startTime), timeBase: decoder.timeBase, copies: copies)
        }
        if source != wanted.source {
            let track = wanted.source
            burner = track.track.isBitmap
                ? (try? BitmapSubtitleBurner(source: track, fallbackSize: track.canvas)).map(Burner.bitmap)
                : (try? SubtitleBurner(source: track)).map(Burner.text)
            source = wanted.source
        }
        guard let burner else { return frame }
        let pts = Self.pts(of: frame, time: time, delay: wanted.delay, decoder: decoder, startTime: startTime)
        do {
            return try burner.burn(frame, pts: pts, timeBase: decoder.timeBase)
        } catch {
            failed = wanted.source
            self.burner = nil
            return frame
        }
    }

    /// ffmpeg's own timestamp for the filters: the decoder's, less the
    /// container's start (as ffmpeg offsets its input), less the delay.
    static func pts(of frame: Frame, time: Double, delay: Double, decoder: Decoder, startTime: Double) -> Int64 {
        let base = decoder.timeBase
        guard let stamp = frame.timestamp else { return Int64(((time - delay) / base.seconds).rounded()) }
        let start = av_rescale_q(Int64((startTime * 1_000_000).rounded()), mp_av_time_base_q(), base)
        let shift = av_rescale_q(Int64((delay * 1_000_000).rounded()), mp_av_time_base_q(), base)
        return stamp - start - shift
    }

    /// The picture with libass's drawing of `pts` blended in as the
    /// subtitles filter blends it; `frame` itself when nothing shows.
    static func drawn(_ frame: Frame, by ass: AssTrack, pts: Int64, timeBase: AVRational, copies: FrameCopies) -> Frame {
        // The filter's milliseconds: the double, truncated as C converts it.
        let milliseconds = Double(pts) * (Double(timeBase.num) / Double(timeBase.den)) * 1000
        guard milliseconds.isFinite, abs(milliseconds) < 9e15 else { return frame }
        let f = frame.pointer
        var result = frame
        ass.render(now: Int64(milliseconds), width: f.pointee.width, height: f.pointee.height) { images in
            guard let images else { return }
            // A picture the decoder no longer holds (not a reference for
            // others) is drawn on in place; else on a copy.
            if av_frame_is_writable(f) != 0 {
                AssBlend.blend(images, into: f)
                return
            }
            guard let copy = copies.copy(f) else { return }
            AssBlend.blend(images, into: copy.pointer)
            result = copy
        }
        return result
    }
}
