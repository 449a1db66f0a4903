/// A playback's master clock (kept under `Player.condition`): which media
/// time is due now. It runs on the system clock, stands still while held (a
/// pause, buffering), and while an audio device plays it follows the
/// device's count of samples played, so that video is shown against what
/// is heard. Once the audio has run out, the device's count stands still
/// and the clock goes on from where the device last moved (as ffplay's does).
struct MasterClock {
    /// Media time `t` is due at wall time `origin + t` (re-based on release and seek).
    private var origin: Double = 0
    /// Set when the first output was due (or the device first moved).
    private(set) var started = false
    /// When it was held, while it is.
    private var heldAt: Double?
    /// Where the device's played-seconds counter stood at a media time.
    private var deviceBase: (media: Double, played: Double)?
    /// The furthest the device clock has read since `deviceBase` was set.
    private var deviceHigh = -Double.infinity

    /// Starts the clock at `mediaTime` unless it runs already.
    mutating func start(at mediaTime: Double, now: Double) {
        guard !started else { return }
        started = true
        origin = now - mediaTime
    }

    /// The media time due now by the system clock (frozen while held).
    func system(now: Double) -> Double {
        (heldAt ?? now) - origin
    }

    /// The wall time at which `mediaTime` is due.
    func due(_ mediaTime: Double) -> Double {
        origin + mediaTime
    }

    mutating func hold(now: Double) {
        if heldAt == nil { heldAt = now }
    }

    /// Goes on from where it stood; the device clock needs nothing, as the
    /// device's counter stood still too.
    mutating func release(now: Double) {
        guard let heldAt else { return }
        origin += now - heldAt
        self.heldAt = nil
    }

    /// After a seek: `target` is due now (still held if it was).
    mutating func seek(to target: Double, now: Double) {
        deviceBase = nil
        deviceHigh = -.infinity
        origin = now - target
        if heldAt != nil { heldAt = now }
    }

    /// From now on, `media` is where the device's counter reads `played`.
    mutating func followDevice(from media: Double, played: Double) {
        deviceBase = (media, played)
        deviceHigh = -.infinity
    }

    /// The device's clock, while it is the master (`played`: its counter).
    /// While the device moves, the system clock is kept in step with it.
    mutating func device(played: Double?, audioDone: Bool, now: Double) -> Double? {
        guard let base = deviceBase, let played else { return nil }
        let device = base.media + max(played - base.played, 0)
        if device > deviceHigh {
            deviceHigh = device
            started = true
            origin = now - device
            return device
        }
        // Standing still: held (the system clock stands still too) or run out.
        guard audioDone, started else { return device }
        return max(device, system(now: now))
    }
}
