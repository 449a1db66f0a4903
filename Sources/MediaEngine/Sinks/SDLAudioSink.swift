import CSDL2
import Foundation
import Synchronization

/// Plays audio on an SDL audio device. Samples go through a single-producer,
/// single-consumer ring: the decode thread writes, SDL's audio callback reads.
/// The callback takes no lock and never allocates; when it frees space it
/// posts a semaphore the writer sleeps on, so a full ring costs no CPU.
public final class SDLAudioSink: AudioSink, @unchecked Sendable {
    private var device: SDL_AudioDeviceID = 0
    private var format = AudioFormat(sampleRate: 0, channels: 0)
    let ring: AudioRing
    private var started = false

    /// Fails when SDL has no usable audio device (headless machine).
    public init() throws {
        if SDL_WasInit(UInt32(SDL_INIT_AUDIO)) == 0, SDL_InitSubSystem(UInt32(SDL_INIT_AUDIO)) != 0 {
            throw FFmpegError(context: "no audio device", message: String(cString: SDL_GetError()))
        }
        ring = AudioRing(capacity: 1 << 18)
    }

    deinit {
        if device != 0 { SDL_CloseAudioDevice(device) }
    }

    /// Seconds of audio heard: what the device took, less the buffer it
    /// still plays, plus the time since it took it (ffplay's estimate, but
    /// never past what was taken, so a paused device's clock stands still).
    public var playedSeconds: Double? {
        guard format.sampleRate > 0 else { return 0 }
        let bytesPerSecond = Double(format.bytesPerFrame * format.sampleRate)
        let taken = Double(ring.consumed.load(ordering: .acquiring)) / bytesPerSecond
        let tookAt = Double(ring.lastRead.load(ordering: .acquiring)) / 1e9
        guard tookAt > 0 else { return 0 }
        let since = max(AudioRing.monotonicNanoseconds() / 1e9 - tookAt, 0)
        return max(0, taken - deviceBuffer + min(since, deviceBuffer))
    }

    /// Seconds one device buffer plays for.
    private var deviceBuffer: Double = 0

    public func open(format: AudioFormat) throws {
        self.format = format
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
        deviceBuffer = Double(obtained.samples) / Double(max(obtained.freq, 1))
    }

    public func write(_ samples: UnsafeRawBufferPointer) throws {
        if !started {
            started = true
            SDL_PauseAudioDevice(device, 0)
        }
        ring.write(samples)
    }

    public func interrupt() { ring.interrupt() }

    /// From the writing thread, so the ring has a single producer still;
    /// the device is locked out while its read position moves.
    public func flush() {
        if device != 0 { SDL_LockAudioDevice(device) }
        ring.dropUnread()
        if device != 0 { SDL_UnlockAudioDevice(device) }
    }

    public func pause() { if device != 0 { SDL_PauseAudioDevice(device, 1) } }
    public func resume() { if device != 0 && started { SDL_PauseAudioDevice(device, 0) } }

    /// Closing the device right away: a paused device would never drain the
    /// ring, and a user who quit does not want the queued second played out.
    public func discard() {
        ring.interrupt()
        guard device != 0 else { return }
        SDL_CloseAudioDevice(device)
        device = 0
    }

    public func close() throws {
        guard device != 0 else { return }
        // Let the device play what is queued before closing.
        ring.waitUntilEmpty()
        SDL_Delay(UInt32(1000 * 2048 / max(format.sampleRate, 1)))
        SDL_CloseAudioDevice(device)
        device = 0
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
    /// Monotonic nanoseconds of the callback's last read.
    let lastRead = Atomic<Int>(0)
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
        consumed.store(produced.load(ordering: .relaxed), ordering: .releasing)
        interrupted.store(false, ordering: .releasing)
    }

    static func monotonicNanoseconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) * 1e9 + Double(spec.tv_nsec)
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
        if take > 0 {
            consumed.add(take, ordering: .releasing)
            sem_post(&space)
        }
        lastRead.store(Int(Self.monotonicNanoseconds()), ordering: .releasing)
    }
}

/// SDL's audio callback: a plain function (no actor isolation can reach SDL's
/// audio thread), state through `userdata`.
func sdlAudioCallback(_ userdata: UnsafeMutableRawPointer?, _ stream: UnsafeMutablePointer<UInt8>?, _ length: Int32) {
    guard let userdata, let stream else { return }
    Unmanaged<AudioRing>.fromOpaque(userdata).takeUnretainedValue().read(into: stream, count: Int(length))
}
