import Foundation
import MediaModel

// Buffering: when a download is slower than the media, the output is held
// (a stall, not a stutter) until about a second is queued again.
extension Player {
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

    func publishBufferFill() {
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
}
