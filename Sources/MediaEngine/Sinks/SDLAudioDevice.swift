import CSDL2
import Foundation
import Synchronization

/// One open SDL audio device and the ring that feeds it. A device lives
/// longer than the player that opened it when the next item brings the same
/// format: `AudioHandoff` passes it on, and the next item's first sample
/// follows the last one's (gapless).
///
/// A paused SDL device still has SDL's thread feeding it silence (about 40
/// wake-ups a second), so a pause that lasts lets the device go once what it
/// had queued has played; resume opens it again. The unplayed samples stay in
/// the ring, so playback continues with the next sample either way.
final class SDLAudioDevice: @unchecked Sendable {
    let format: AudioFormat
    /// At least a second of sound (256 KiB, 1.5 s of CD audio, at the least).
    let ring: AudioRing
    /// Bytes a second, and the seconds one device buffer plays for.
    let bytesPerSecond: Double
    /// Set once, when the device first opens.
    private(set) var deviceBuffer: Double = 0
    /// Guards the fields below (pause, resume and the delayed release come
    /// from different threads).
    private let lock = NSLock()
    private var device: SDL_AudioDeviceID = 0
    private var started = false
    private var paused = false
    private var released = false
    private var pauseGeneration = 0
    private let releaseQueue = DispatchQueue(label: "mediaplay.audio-device")

    init(format: AudioFormat) throws {
        if let problem = format.problem { throw problem }
        self.format = format
        bytesPerSecond = Double(format.bytesPerFrame * format.sampleRate)
        var capacity = 1 << 18
        while Double(capacity) < bytesPerSecond { capacity <<= 1 }
        ring = AudioRing(capacity: capacity)
        deviceBuffer = try lock.withLock { try openDevice() }
    }

    deinit {
        if device != 0 { SDL_CloseAudioDevice(device) }
    }

    /// With `lock` held; returns the seconds one device buffer plays for.
    @discardableResult
    private func openDevice() throws -> Double {
        var wanted = SDL_AudioSpec()
        wanted.freq = Int32(format.sampleRate)
        wanted.format = mp_sdl_audio_s16sys()
        wanted.channels = UInt8(clamping: format.channels)
        // The volume applies from the next callback: a change is heard within
        // this (23 ms at 44.1 kHz). 512 measured slower on SDL's disk driver
        // (docs/PERFORMANCE.md).
        wanted.samples = Self.bufferSamples(rate: format.sampleRate)
        wanted.callback = sdlAudioCallback
        wanted.userdata = Unmanaged.passUnretained(ring).toOpaque()
        var obtained = SDL_AudioSpec()
        // SDL converts rate and channels to what the device takes (5.1 → stereo too).
        device = SDL_OpenAudioDevice(nil, 0, &wanted, &obtained, 0)
        if device == 0 {
            throw OutputDeviceError(.audio, "cannot open the audio device", message: String(cString: SDL_GetError()))
        }
        return Double(obtained.samples) / Double(max(obtained.freq, 1))
    }

    /// One device buffer in samples, sized in time: the largest power of
    /// two that lasts at most 25 ms (1024 at 44.1 and 48 kHz), 64 at the
    /// least. In samples alone, 1024 lasted 128 s at 8 Hz, and a stop
    /// waited for SDL's thread that long.
    static func bufferSamples(rate: Int) -> UInt16 {
        var samples = 64
        while samples * 2 * 40 <= rate && samples < 16384 { samples *= 2 }
        return UInt16(samples)
    }

    /// Whether the device is still there to play (not discarded or closed).
    var isOpen: Bool { lock.withLock { device != 0 || released } }

    /// Open, playing (not paused) and not cut off: what it holds will play.
    var canDrain: Bool {
        lock.withLock { device != 0 && !paused } && !ring.interrupted.load(ordering: .acquiring)
    }

    /// The first samples are queued: the device starts pulling (unless paused).
    func start() {
        lock.withLock {
            if !started && !paused {
                started = true
                SDL_PauseAudioDevice(device, 0)
            }
        }
    }

    /// Seconds heard of what was written after byte `base` of the ring: what
    /// the device took, less the buffer it still plays, plus the time since
    /// it took it (ffplay's estimate, but never past what was taken, so a
    /// paused device's clock stands still). 0 while earlier samples (the
    /// item before, gapless) still play.
    func playedSeconds(since base: Int) -> Double {
        let (consumed, nanoseconds) = ring.lastReadSnapshot()
        guard nanoseconds > 0, consumed > base else { return 0 }
        let taken = Double(consumed - base) / bytesPerSecond
        let since = Double(max(MonotonicClock.nanoseconds() - nanoseconds, 0)) / 1e9
        return max(0, taken - deviceBuffer + min(since, deviceBuffer))
    }

    /// Seconds of audio written and not yet taken by the device.
    var queuedSeconds: Double {
        Double(ring.produced.load(ordering: .acquiring) - ring.consumed.load(ordering: .acquiring)) / bytesPerSecond
    }

    /// A seek: forgets what is not yet played, from the writing thread, so
    /// the ring has a single producer still; the device is locked out while
    /// its read position moves.
    func flush() {
        lock.withLock {
            if device != 0 { SDL_LockAudioDevice(device) }
            ring.dropUnread()
            if device != 0 { SDL_UnlockAudioDevice(device) }
        }
    }

    func pause() {
        let generation = lock.withLock { () -> Int in
            if device != 0 { SDL_PauseAudioDevice(device, 1) }
            paused = true
            pauseGeneration += 1
            return pauseGeneration
        }
        // Long enough for the buffers SDL and the sound server hold to play out.
        releaseQueue.asyncAfter(deadline: .now() + 0.25) { [self] in
            lock.withLock {
                guard paused, pauseGeneration == generation, device != 0 else { return }
                SDL_CloseAudioDevice(device)
                device = 0
                released = true
            }
        }
    }

    func resume() {
        let lost = lock.withLock { () -> Bool in
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

    /// Closes at once: a paused device would never drain the ring, and a
    /// user who stopped does not want the queued second played out.
    func discard() {
        ring.interrupt()
        lock.withLock {
            paused = true  // no release is pending past this point
            released = false
            if device != 0 { SDL_CloseAudioDevice(device) }
            device = 0
        }
    }

    /// Plays what is queued, then closes (blocks that long); a device that
    /// cannot drain (paused, cut off) closes at once.
    func closeWhenPlayed() {
        guard isOpen else { return }
        guard canDrain else { return discard() }
        ring.waitUntilFill(atMost: 0)
        // What SDL and the sound server still hold.
        SDL_Delay(UInt32(min(1000 * 2048 / max(format.sampleRate, 1), 250)))
        discard()
    }
}

/// The ring between the decode thread and SDL's callback. The callback takes
/// no lock and never allocates; when it frees space it posts a semaphore the
/// writer sleeps on, so a full ring costs no CPU.
final class AudioRing: @unchecked Sendable {
    let capacity: Int
    let storage: UnsafeMutablePointer<UInt8>
    /// Total bytes written and consumed; their difference is the fill.
    let produced = Atomic<Int>(0)
    let consumed = Atomic<Int>(0)
    /// The gain applied as the device takes the samples (volume × loudness
    /// normalisation; 0: muted), a Float's bits. Applied there, not before
    /// the ring, so a change is heard within one device buffer, as mpv's
    /// software volume is.
    let gainBits = Atomic<UInt32>(Float(1).bitPattern)
    /// Posted by the callback after it consumed bytes. Behind a pointer: a
    /// stored sem_t passed as `&space` from two threads is two overlapping
    /// Swift accesses (a race to ThreadSanitizer), though the semaphore
    /// itself is made for it.
    let space = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
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
        sem_init(space, 0, 0)
    }

    deinit {
        storage.deallocate()
        sem_destroy(space)
        space.deallocate()
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let fill = produced.load(ordering: .relaxed) - consumed.load(ordering: .acquiring)
            let free = capacity - fill
            if free == 0 {
                if interrupted.load(ordering: .acquiring) { return }
                while sem_wait(space) != 0 && errno == EINTR {}
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
        sem_post(space)
    }

    /// A new writer takes the ring over (the next item, gapless).
    func clearInterrupt() {
        interrupted.store(false, ordering: .releasing)
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

    /// Waits (on the semaphore, by the writing side only) until no more than
    /// `bytes` are left to play, or an interrupt.
    func waitUntilFill(atMost bytes: Int) {
        while produced.load(ordering: .acquiring) - consumed.load(ordering: .acquiring) > bytes {
            if interrupted.load(ordering: .acquiring) { return }
            while sem_wait(space) != 0 && errno == EINTR {}
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
        let gain = Float(bitPattern: gainBits.load(ordering: .relaxed))
        if gain != 1 { Self.scale(output, samples: take / 2, by: gain) }
        // A read that found nothing fed the device only silence: the last
        // real read still says what plays, and the clock comes to rest at
        // the last sample instead of falling back a buffer each time.
        guard take > 0 else { return }
        consumed.add(take, ordering: .releasing)
        sem_post(space)
        recordRead(consumed: consumed.load(ordering: .relaxed))
    }

    /// s16 samples times `factor`, rounded to the nearest (ties to even) and
    /// clipped: a loop the compiler vectorises, as it runs on SDL's audio
    /// thread for every sample while a volume or loudness gain applies.
    static func scale(_ bytes: UnsafeMutablePointer<UInt8>, samples: Int, by factor: Float) {
        bytes.withMemoryRebound(to: Int16.self, capacity: samples) { sample in
            if factor == 0 {
                sample.update(repeating: 0, count: samples)
                return
            }
            for index in 0..<samples {
                let scaled = min(max(Float(sample[index]) * factor, -32768), 32767)
                // Added to 1.5 × 2^23, a float in ±32768 is rounded to an
                // integer held in its low mantissa bits: the low 16 bits are
                // the sample (no conversion that checks, so it vectorises).
                sample[index] = Int16(truncatingIfNeeded: (scaled + 12_582_912).bitPattern)
            }
        }
    }
}

/// SDL's audio callback: a plain function (no actor isolation can reach SDL's
/// audio thread), state through `userdata`.
func sdlAudioCallback(_ userdata: UnsafeMutableRawPointer?, _ stream: UnsafeMutablePointer<UInt8>?, _ length: Int32) {
    guard let userdata, let stream else { return }
    Unmanaged<AudioRing>.fromOpaque(userdata).takeUnretainedValue().read(into: stream, count: Int(length))
}
