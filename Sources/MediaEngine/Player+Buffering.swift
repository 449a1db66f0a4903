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
        guard options.clock == .realTime, inputWaiting, !inputEnded, !buffer.isActive, state == .playing else { return nil }
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
        buffer.begin()
        position = currentPositionLocked()
        state = .buffering
        holdClock()
        audioSink?.pause()
        publish(.state(.buffering))
        publishBufferFill()
    }

    /// After each packet queued: resume once every stream has about a
    /// second ahead (ffplay's "enough"), the memory cap is reached, or the
    /// file's end is queued.
    func stopBufferingIfFilled() {
        guard buffer.isActive else { return }
        let filled = BufferingState.isFilled(
            inputEnded: inputEnded, queuedBytes: (audioQueue?.bytes ?? 0) + (videoQueue?.bytes ?? 0),
            audioHasEnough: audioQueue?.hasEnough ?? true, videoHasEnough: videoQueue?.hasEnough ?? true
        )
        guard filled else {
            publishBufferFill()
            return
        }
        buffer.end()
        if pauseRequested { return }  // stays paused; resume() starts the device
        state = .playing
        releaseClock()
        audioSink?.resume()
        publish(.state(.playing))
    }

    func bufferFillLocked() -> Double {
        BufferingState.fill(audioSeconds: audioQueue?.seconds, videoSeconds: videoQueue?.seconds)
    }

    func publishBufferFill() {
        guard buffer.fillEventDue(now: Self.now()) else { return }
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

/// Output held for a slow input (kept under `Player.condition`): whether it
/// is, when it may go on, and how full the buffer is.
struct BufferingState {
    private(set) var isActive = false
    /// When the last fill event went out (at most ten a second).
    private var lastFillEvent: Double = 0

    /// Beyond this much queued, playback goes on whatever the streams hold.
    static let memoryCap = 15 << 20

    mutating func begin() {
        isActive = true
        lastFillEvent = 0
    }

    mutating func end() {
        isActive = false
    }

    /// Enough to go on: every stream has about a second ahead (ffplay's
    /// "enough"), the memory cap is reached, or the input's end is queued.
    static func isFilled(inputEnded: Bool, queuedBytes: Int, audioHasEnough: Bool, videoHasEnough: Bool) -> Bool {
        inputEnded || queuedBytes > memoryCap || (audioHasEnough && videoHasEnough)
    }

    /// How full the buffer is, 0...1: the emptier stream's second.
    static func fill(audioSeconds: Double?, videoSeconds: Double?) -> Double {
        min(audioSeconds.map { min(1, $0) } ?? 1, videoSeconds.map { min(1, $0) } ?? 1)
    }

    mutating func fillEventDue(now: Double) -> Bool {
        guard now - lastFillEvent >= 0.1 else { return false }
        lastFillEvent = now
        return true
    }
}
