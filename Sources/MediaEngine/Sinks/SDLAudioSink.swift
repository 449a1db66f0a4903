import CSDL2
import Foundation
import Synchronization

/// Plays audio on an SDL audio device. Samples go through a single-producer,
/// single-consumer ring: the decode thread writes, SDL's audio callback reads.
/// The callback takes no lock and never allocates; when it frees space it
/// posts a semaphore the writer sleeps on, so a full ring costs no CPU.
///
/// A paused SDL device still has SDL's thread feeding it silence (about 40
/// wake-ups a second), so a pause that lasts lets the device go once what it
/// had queued has played; resume opens it again. The unplayed samples stay in
/// our ring, so playback continues with the next sample either way.
public final class SDLAudioSink: AudioSink, @unchecked Sendable {
    /// Guards the device fields below (pause, resume and the delayed release
    /// come from different threads).
    private let deviceLock = NSLock()
    private var device: SDL_AudioDeviceID = 0
    private var started = false
    private var paused = false
    private var released = false
    private var pauseGeneration = 0
    private let releaseQueue = DispatchQueue(label: "mediaplay.audio-device")
    private var format = AudioFormat(sampleRate: 0, channels: 0)
    let ring: AudioRing

    /// Fails when SDL's audio cannot start at all. With `probe`, also when no
    /// device opens (a headless machine), so the caller can fall back to
    /// silent real-time playback: the device itself opens only once the
    /// stream's format is known, too late to fall back. The probe is made
    /// once per process; it makes ALSA print to stderr on a machine without
    /// sound, so callers probe only for media that have audio.
    public init(probe: Bool = false) throws {
        if SDL_WasInit(UInt32(SDL_INIT_AUDIO)) == 0, SDL_InitSubSystem(UInt32(SDL_INIT_AUDIO)) != 0 {
            throw FFmpegError(context: "no audio device", message: String(cString: SDL_GetError()))
        }
        if probe {
            let problem = Self.probeResult.withLock { known in
                if known == nil { known = Self.probeDevice() }
                return known!
            }
            if !problem.isEmpty { throw FFmpegError(context: "no audio device", message: problem) }
        }
        ring = AudioRing(capacity: 1 << 18)
    }

    /// Whether a device opens at all, tried once per process ("" when it
    /// does): the device itself opens only once the stream's format is
    /// known, too late to fall back to silence.
    private static let probeResult = Mutex<String?>(nil)

    private static func probeDevice() -> String {
        var wanted = SDL_AudioSpec()
        wanted.freq = 48000
        wanted.format = mp_sdl_audio_s16sys()
        wanted.channels = 2
        wanted.samples = 1024
        var obtained = SDL_AudioSpec()
        let device = SDL_OpenAudioDevice(nil, 0, &wanted, &obtained, 0)
        guard device != 0 else { return String(cString: SDL_GetError()) }
        SDL_CloseAudioDevice(device)
        return ""
    }

    deinit {
        if device != 0 { SDL_CloseAudioDevice(device) }
    }

    /// Seconds of audio heard: what the device took, less the buffer it
    /// still plays, plus the time since it took it (ffplay's estimate, but
    /// never past what was taken, so a paused device's clock stands still).
    public var playedSeconds: Double? {
        // Read by the presenter and decoder threads while `open` may be
        // writing them: one locked snapshot (they were read bare).
        let (bytesPerSecond, deviceBuffer) = clock.withLock { ($0.bytesPerSecond, $0.deviceBuffer) }
        guard bytesPerSecond > 0 else { return 0 }
        let (consumed, nanoseconds) = ring.lastReadSnapshot()
        guard nanoseconds > 0 else { return 0 }
        let taken = Double(consumed) / bytesPerSecond
        let since = Double(max(MonotonicClock.nanoseconds() - nanoseconds, 0)) / 1e9
        return max(0, taken - deviceBuffer + min(since, deviceBuffer))
    }

    /// What the played-seconds estimate needs: bytes a second, and the
    /// seconds one device buffer plays for.
    private let clock = Mutex<(bytesPerSecond: Double, deviceBuffer: Double)>((0, 0))

    public func open(format: AudioFormat) throws {
        self.format = format
        try deviceLock.withLock { try openDevice() }
    }

    /// With `deviceLock` held.
    private func openDevice() throws {
        var wanted = SDL_AudioSpec()
        wanted.freq = Int32(format.sampleRate)
        wanted.format = mp_sdl_audio_s16sys()
        wanted.channels = UInt8(format.channels)
        wanted.samples = 1024
        wanted.callback = sdlAudioCallback
        wanted.userdata = Unmanaged.passUnretained(ring).toOpaque()
        var obtained = SDL_AudioSpec()
        // SDL converts rate and channels to what the device takes (5.1 → stereo too).
        device = SDL_OpenAudioDevice(nil, 0, &wanted, &obtained, 0)
        if device == 0 {
            throw FFmpegError(context: "cannot open the audio device", message: String(cString: SDL_GetError()))
        }
        let buffer = Double(obtained.samples) / Double(max(obtained.freq, 1))
        let bytesPerSecond = Double(format.bytesPerFrame * format.sampleRate)
        clock.withLock { $0 = (bytesPerSecond, buffer) }
    }

    public func write(_ samples: UnsafeRawBufferPointer) throws {
        deviceLock.withLock {
            if !started && !paused {
                started = true
                SDL_PauseAudioDevice(device, 0)
            }
        }
        ring.write(samples)
    }

    public func interrupt() { ring.interrupt() }

    /// From the writing thread, so the ring has a single producer still;
    /// the device is locked out while its read position moves.
    public func flush() {
        deviceLock.withLock {
            if device != 0 { SDL_LockAudioDevice(device) }
            ring.dropUnread()
            if device != 0 { SDL_UnlockAudioDevice(device) }
        }
    }

    public func pause() {
        let generation = deviceLock.withLock { () -> Int in
            if device != 0 { SDL_PauseAudioDevice(device, 1) }
            paused = true
            pauseGeneration += 1
            return pauseGeneration
        }
        // Long enough for the buffers SDL and the sound server hold to play out.
        releaseQueue.asyncAfter(deadline: .now() + 0.25) { [self] in
            deviceLock.withLock {
                guard paused, pauseGeneration == generation, device != 0 else { return }
                SDL_CloseAudioDevice(device)
                device = 0
                released = true
            }
        }
    }

    public func resume() {
        let lost = deviceLock.withLock { () -> Bool in
            paused = false
            pauseGeneration += 1
            if released {
                released = false
                do { try openDevice() } catch { return true }
            }
            if device != 0 && started { SDL_PauseAudioDevice(device, 0) }
            return false
        }
        // The device is gone (unplugged): let the writer through rather than wait forever.
        if lost { ring.interrupt() }
    }

    /// Closing the device right away: a paused device would never drain the
    /// ring, and a user who quit does not want the queued second played out.
    public func discard() {
        ring.interrupt()
        deviceLock.withLock {
            guard device != 0 else { return }
            SDL_CloseAudioDevice(device)
            device = 0
        }
    }

    public func close() throws {
        guard deviceLock.withLock({ device != 0 || released }) else { return }
        // Let the device play what is queued before closing.
        ring.waitUntilEmpty()
        SDL_Delay(UInt32(1000 * 2048 / max(format.sampleRate, 1)))
        deviceLock.withLock {
            paused = true  // no release is pending past this point
            if device != 0 { SDL_CloseAudioDevice(device) }
            device = 0
        }
    }
}

/// The ring between the decode thread and SDL's callback.
final class AudioRing: @unchecked Sendable {
    let capacity: Int
    let storage: UnsafeMutablePointer<UInt8>
    /// Total bytes written and consumed; their difference is the fill.
    let produced = Atomic<Int>(0)
    let consumed = Atomic<Int>(0)
    /// Posted by the callback after it consumed bytes.
    var space = sem_t()
    /// The callback's last read: bytes consumed after it and when (monotonic
    /// nanoseconds), written under a sequence counter (a seqlock) so a reader
    /// never pairs one read's count with another's time: that mix made the
    /// clock jump a whole buffer ahead now and then.
    private let readSequence = Atomic<Int>(0)
    private let readConsumed = Atomic<Int>(0)
    private let readTime = Atomic<Int>(0)
    /// Set by `interrupt`: a waiting write gives up.
    let interrupted = Atomic<Bool>(false)

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        sem_init(&space, 0, 0)
    }

    deinit {
        storage.deallocate()
        sem_destroy(&space)
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let fill = produced.load(ordering: .relaxed) - consumed.load(ordering: .acquiring)
            let free = capacity - fill
            if free == 0 {
                if interrupted.load(ordering: .acquiring) { return }
                while sem_wait(&space) != 0 && errno == EINTR {}
                continue
            }
            let count = min(free, bytes.count - offset)
            let start = produced.load(ordering: .relaxed) % capacity
            let first = min(count, capacity - start)
            memcpy(storage + start, bytes.baseAddress! + offset, first)
            if count > first { memcpy(storage, bytes.baseAddress! + offset + first, count - first) }
            produced.add(count, ordering: .releasing)
            offset += count
        }
    }

    func interrupt() {
        interrupted.store(true, ordering: .releasing)
        sem_post(&space)
    }

    /// Forgets what is not yet played (the producer, with the device locked).
    func dropUnread() {
        let position = produced.load(ordering: .relaxed)
        consumed.store(position, ordering: .releasing)
        if readTime.load(ordering: .sequentiallyConsistent) > 0 { recordRead(consumed: position) }
        interrupted.store(false, ordering: .releasing)
    }

    /// The writer side of the seqlock (the callback, or a flush with the
    /// device locked): never waits.
    private func recordRead(consumed position: Int) {
        readSequence.add(1, ordering: .sequentiallyConsistent)
        readConsumed.store(position, ordering: .sequentiallyConsistent)
        readTime.store(MonotonicClock.nanoseconds(), ordering: .sequentiallyConsistent)
        readSequence.add(1, ordering: .sequentiallyConsistent)
    }

    /// A consistent (consumed, time) pair of the last read; time 0: none yet.
    func lastReadSnapshot() -> (consumed: Int, nanoseconds: Int) {
        while true {
            let before = readSequence.load(ordering: .sequentiallyConsistent)
            if before & 1 == 0 {
                let pair = (readConsumed.load(ordering: .sequentiallyConsistent), readTime.load(ordering: .sequentiallyConsistent))
                if readSequence.load(ordering: .sequentiallyConsistent) == before { return pair }
            }
            sched_yield()
        }
    }

    func waitUntilEmpty() {
        while produced.load(ordering: .acquiring) != consumed.load(ordering: .acquiring) {
            if interrupted.load(ordering: .acquiring) { return }
            while sem_wait(&space) != 0 && errno == EINTR {}
        }
    }

    /// Called on SDL's audio thread: copy what we have, silence for the rest.
    func read(into output: UnsafeMutablePointer<UInt8>, count: Int) {
        let available = produced.load(ordering: .acquiring) - consumed.load(ordering: .relaxed)
        let take = min(available, count)
        let start = consumed.load(ordering: .relaxed) % capacity
        let first = min(take, capacity - start)
        memcpy(output, storage + start, first)
        if take > first { memcpy(output + first, storage, take - first) }
        if take < count { memset(output + take, 0, count - take) }
        // A read that found nothing fed the device only silence: the last
        // real read still says what plays, and the clock comes to rest at
        // the last sample instead of falling back a buffer each time.
        guard take > 0 else { return }
        consumed.add(take, ordering: .releasing)
        sem_post(&space)
        recordRead(consumed: consumed.load(ordering: .relaxed))
    }
}

/// SDL's audio callback: a plain function (no actor isolation can reach SDL's
/// audio thread), state through `userdata`.
func sdlAudioCallback(_ userdata: UnsafeMutableRawPointer?, _ stream: UnsafeMutablePointer<UInt8>?, _ length: Int32) {
    guard let userdata, let stream else { return }
    Unmanaged<AudioRing>.fromOpaque(userdata).takeUnretainedValue().read(into: stream, count: Int(length))
}
