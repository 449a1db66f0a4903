import CSDL2
import Foundation
import Synchronization

/// Plays a player's audio on an SDL audio device (`SDLAudioDevice`). With an
/// `AudioHandoff`, the device is passed on to the next item instead of
/// closed, so two items in a row play without a gap.
public final class SDLAudioSink: AudioSink, @unchecked Sendable {
    private let handoff: AudioHandoff?
    /// The device once `open` has one, and where this player's samples begin
    /// in its ring (a device taken over still plays the item before).
    private let current = Mutex<(device: SDLAudioDevice?, base: Int)>((nil, 0))
    private let gain = Atomic<UInt32>(Float(1).bitPattern)
    private let handsOn = Atomic<Bool>(false)
    /// Paused before the device opened (a toggle of the next item came
    /// first): the device opens paused, and goes as a paused one does.
    /// Left open, fifteen quick toggles used up SDL's sixteen devices.
    private let pausedEarly = Atomic<Bool>(false)

    /// Fails when SDL's audio cannot start at all. With `probe`, also when no
    /// device opens (a headless machine), so the caller can fall back to
    /// silent real-time playback: the device itself opens only once the
    /// stream's format is known, too late to fall back. The probe is made
    /// once per process; it makes ALSA print to stderr on a machine without
    /// sound, so callers probe only for media that have audio.
    public init(probe: Bool = false, handoff: AudioHandoff? = nil) throws {
        self.handoff = handoff
        _ = Self.silenced
        if SDL_WasInit(UInt32(SDL_INIT_AUDIO)) == 0, SDL_InitSubSystem(UInt32(SDL_INIT_AUDIO)) != 0 {
            throw OutputDeviceError(.audio, "no audio device", message: String(cString: SDL_GetError()))
        }
        if probe {
            let problem = Self.probeResult.withLock { known in
                if known == nil { known = Self.probeDevice() }
                return known!
            }
            if !problem.isEmpty { throw OutputDeviceError(.audio, "no audio device", message: problem) }
        }
    }

    /// The sound libraries' own stderr messages silenced, once, before SDL
    /// loads ALSA (mediaplay says "no sound device" in one line itself).
    private static let silenced: Void = mp_silence_sound_libraries()

    /// Whether a device opens at all, tried once per process ("" when it does).
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

    private var device: SDLAudioDevice? { current.withLock { $0.device } }

    public var playedSeconds: Double? {
        let (device, base) = current.withLock { ($0.device, $0.base) }
        return device?.playedSeconds(since: base) ?? 0
    }

    public func open(format: AudioFormat) throws {
        let device = try handoff?.take(format) ?? SDLAudioDevice(format: format)
        device.ring.gainBits.store(gain.load(ordering: .relaxed), ordering: .relaxed)
        current.withLock { $0 = (device, device.ring.produced.load(ordering: .acquiring)) }
        if pausedEarly.load(ordering: .acquiring) { device.pause() }
    }

    public func write(_ samples: UnsafeRawBufferPointer) throws {
        guard let device else { return }
        device.start()
        device.ring.write(samples)
    }

    public var appliesGain: Bool { true }

    public func setGain(_ factor: Double) {
        let bits = Float(factor).bitPattern
        gain.store(bits, ordering: .relaxed)
        device?.ring.gainBits.store(bits, ordering: .relaxed)
    }

    public func handOnAtEnd(_ yes: Bool) { handsOn.store(yes, ordering: .relaxed) }

    public var queuedSeconds: Double { device?.queuedSeconds ?? 0 }

    public var handOnLead: Double { handoff != nil && handsOn.load(ordering: .relaxed) ? AudioHandoff.lead : 0 }

    public var canPlayOut: Bool { device?.canDrain ?? false }

    public func interrupt() { device?.ring.interrupt() }

    /// A seek: what was queued is dropped, never heard, so this player's
    /// played time counts again from the ring's end (the clock would
    /// otherwise count the dropped samples once the device reads again).
    public func flush() {
        current.withLock { current in
            guard let device = current.device else { return }
            device.flush()
            current.base = device.ring.produced.load(ordering: .acquiring)
        }
    }

    public func pause() {
        pausedEarly.store(true, ordering: .releasing)
        device?.pause()
    }

    public func resume() {
        pausedEarly.store(false, ordering: .releasing)
        device?.resume()
    }

    public func discard() {
        current.withLock { $0.device }?.discard()
    }

    /// At the end: when another item follows, the device goes to the
    /// handoff once less than its lead is left to play (the next item then
    /// has that long to start); otherwise it plays out and closes, and the
    /// item ends when its last sample is heard.
    /// The device stays this sink's while it waits: a pause meanwhile still
    /// pauses it.
    public func close() throws {
        guard let device, device.isOpen else { return }
        guard let handoff, handsOn.load(ordering: .relaxed) else {
            device.closeWhenPlayed()
            current.withLock { $0.device = nil }
            return
        }
        device.ring.waitUntilFill(atMost: Int(AudioHandoff.lead * device.bytesPerSecond))
        current.withLock { $0.device = nil }
        // Stopped, paused or lost meanwhile: nothing to hand on (a pause from
        // here on no longer reaches the device).
        if device.canDrain { handoff.keep(device) } else { device.discard() }
    }
}

/// Where a device waits between two items: the next item takes it if its
/// format is the same (gapless), else it plays out and closes. One per
/// engine; `drain` before the process exits lets the last item finish.
public final class AudioHandoff: Sendable {
    /// How much of an item is left to play when its device is handed on:
    /// the time the next item has to open and decode its first samples.
    static let lead = 0.5
    private let held = Mutex<(device: SDLAudioDevice, generation: Int)?>(nil)
    private let generation = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "mediaplay.audio-handoff")

    public init() {}

    func keep(_ device: SDLAudioDevice) {
        let mine = generation.add(1, ordering: .relaxed).newValue
        let replaced = held.withLock { current -> SDLAudioDevice? in
            defer { current = (device, mine) }
            return current?.device
        }
        // One held at a time: an earlier one (never taken) plays out and closes.
        if let replaced { queue.async { replaced.closeWhenPlayed() } }
        // Nobody came for it: let it play out (a little after its end, so a
        // late next item still finds it) and close.
        queue.asyncAfter(deadline: .now() + device.queuedSeconds + 0.25) { [self] in
            let unclaimed = held.withLock { current -> SDLAudioDevice? in
                guard let held = current, held.generation == mine else { return nil }
                current = nil
                return held.device
            }
            unclaimed?.closeWhenPlayed()
        }
    }

    /// The held device if it plays `format` and is still open; a device of
    /// another format first plays out (the formats cannot join).
    func take(_ format: AudioFormat) -> SDLAudioDevice? {
        guard let device = held.withLock({ current in defer { current = nil }; return current?.device }) else { return nil }
        guard device.format == format, device.canDrain else {
            device.closeWhenPlayed()
            return nil
        }
        device.ring.clearInterrupt()
        return device
    }

    /// Plays out what the last item left (blocks that long).
    public func drain() {
        held.withLock { current in defer { current = nil }; return current?.device }?.closeWhenPlayed()
    }
}
