/// Where decoded audio goes. One backend per file, the engine unaware of which
/// is in use.
public protocol AudioSink: AnyObject, Sendable {
    /// Called once before the first samples, with their format.
    func open(format: AudioFormat) throws
    /// Interleaved s16 samples, in playback order. A sink records only what
    /// is played: nothing is written while paused.
    func write(_ samples: UnsafeRawBufferPointer) throws
    /// End of playback: finish files, release devices.
    func close() throws
    /// Playback paused or resumed: a device stops or starts pulling samples.
    func pause()
    func resume()
    /// Playback stopped early: drop samples not yet played (before `close`).
    func discard()
    /// Wake a `write` that waits for room, from another thread: it returns
    /// at once (a seek or stop makes its samples moot).
    func interrupt()
    /// A seek: drop samples not yet played, from the writing thread.
    func flush()
    /// Seconds of audio actually played, for a sink that paces itself (a
    /// device); nil for file sinks, which the player paces by the wall clock.
    var playedSeconds: Double? { get }
    /// A device applies the volume itself as it plays (`setGain`), so a
    /// change is heard at once; a recording gets it from the filter stage,
    /// exactly as ffmpeg's `volume` filter computes it.
    var appliesGain: Bool { get }
    /// The linear gain (volume × loudness normalisation; 0: muted), for a
    /// sink that `appliesGain`.
    func setGain(_ factor: Double)
    /// Another item follows: a device is handed on (gapless) instead of
    /// played out at `close`.
    func handOnAtEnd(_ yes: Bool)
    /// Seconds written and not yet played (a device).
    var queuedSeconds: Double { get }
    /// Seconds left to play when `close` hands the device on (0: it plays out).
    var handOnLead: Double { get }
    /// The device still plays what it holds (false once it is gone or cut off).
    var canPlayOut: Bool { get }
}

extension AudioSink {
    public func pause() {}
    public func resume() {}
    public func discard() {}
    public func interrupt() {}
    public func flush() {}
    public var playedSeconds: Double? { nil }
    public var appliesGain: Bool { false }
    public func setGain(_ factor: Double) {}
    public func handOnAtEnd(_ yes: Bool) {}
    public var queuedSeconds: Double { 0 }
    public var handOnLead: Double { 0 }
    public var canPlayOut: Bool { true }
}

/// A decoded picture as sinks see it.
public struct VideoFrameInfo: Sendable {
    /// Presentation time in seconds from the start of the stream.
    public var time: Double
    public var width: Int
    public var height: Int
    /// The subtitle text showing with this picture, for a sink that draws
    /// text (`VideoSink.drawsSubtitleText`); nil: none.
    public var subtitle: String?

    public init(time: Double, width: Int, height: Int, subtitle: String? = nil) {
        self.time = time
        self.width = width
        self.height = height
        self.subtitle = subtitle
    }
}

/// Where decoded video goes.
public protocol VideoSink: AnyObject, Sendable {
    func present(_ frame: Frame, info: VideoFrameInfo) throws
    func close() throws
    /// A display skips late frames to keep up; a record keeps every one.
    var dropsLateFrames: Bool { get }
    /// After a still image: keep showing it until the user closes it or
    /// `dismiss` is called (a display); returns at once for a record.
    func holdUntilDismissed()
    func dismiss()
    /// The sink shows subtitles as text of its own (the terminal): they are
    /// handed over in `VideoFrameInfo.subtitle`, not drawn into the picture.
    var drawsSubtitleText: Bool { get }
}

extension VideoSink {
    public var dropsLateFrames: Bool { false }
    public var drawsSubtitleText: Bool { false }
    public func holdUntilDismissed() {}
    public func dismiss() {}
}
