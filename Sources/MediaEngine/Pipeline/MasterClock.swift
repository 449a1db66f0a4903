/// A playback's master clock (kept under `Player.condition`): which media
/// time is due now. It runs on the system clock, stands still while held (a
/// pause, buffering), and while an audio device plays it follows the
/// device's count of samples played, so that video is shown against what
/// is heard. Once the audio has run out, the device's count stands still
/// and the clock goes on from where the device last moved (as ffplay's does).
struct MasterClock {
    /// Media time `mediaBase` was due at wall time `wallBase`; from there it
    /// runs at `rate` media seconds a second (the playback speed).
    private var mediaBase: Double = 0
    private var wallBase: Double = 0
    private(set) var rate: Double = 1
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
        mediaBase = mediaTime
        wallBase = now
    }

    /// The media time due now by the system clock (frozen while held).
    func system(now: Double) -> Double {
        mediaBase + ((heldAt ?? now) - wallBase) * rate
    }

    /// The wall time at which `mediaTime` is due.
    func due(_ mediaTime: Double) -> Double {
        wallBase + (mediaTime - mediaBase) / rate
    }

    mutating func hold(now: Double) {
        if heldAt == nil { heldAt = now }
    }

    /// Goes on from where it stood; the device clock needs nothing, as the
    /// device's counter stood still too.
    mutating func release(now: Double) {
        guard let heldAt else { return }
        wallBase += now - heldAt
        self.heldAt = nil
    }

    /// After a seek: `target` is due now (still held if it was), and the
    /// clock runs at `rate` from here (a new speed starts with a seek).
    mutating func seek(to target: Double, now: Double, rate: Double) {
        deviceBase = nil
        deviceHigh = -.infinity
        mediaBase = target
        wallBase = now
        self.rate = rate
        if heldAt != nil { heldAt = now }
    }

    /// The rate before anything plays.
    mutating func setInitialRate(_ rate: Double) {
        self.rate = rate
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
        let device = base.media + max(played - base.played, 0) * rate
        if device > deviceHigh {
            deviceHigh = device
            started = true
            mediaBase = device
            wallBase = now
            return device
        }
        // Standing still: held (the system clock stands still too) or run out.
        guard audioDone, started else { return device }
        return max(device, system(now: now))
    }
}
