/// Discards audio and video: for `--no-audio`-like runs and machines without
/// an audio device or display.
public final class NullSink: AudioSink, VideoSink {
    public init() {}
    public func open(format: AudioFormat) throws {}
    public func write(_ samples: UnsafeRawBufferPointer) throws {}
    public func present(_ frame: Frame, info: VideoFrameInfo) throws {}
    public func close() throws {}
}
