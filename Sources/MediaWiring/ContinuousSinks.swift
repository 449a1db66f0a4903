import MediaEngine
import MediaModel

/// One recording across every item a session plays (scripted playback's
/// `--audio-out`): the inner sink opens once, later players must bring the
/// same format, and only `finish` closes it.
public final class ContinuousAudioSink: AudioSink, @unchecked Sendable {
    private let inner: any AudioSink
    private var format: AudioFormat?

    public init(_ inner: any AudioSink) { self.inner = inner }

    public func open(format: AudioFormat) throws {
        if let opened = self.format {
            guard opened == format else {
                throw CommandError(.badRequest, "--audio-out records one format: \(opened.sampleRate) Hz × \(opened.channels), then \(format.sampleRate) Hz × \(format.channels)")
            }
            return
        }
        self.format = format
        try inner.open(format: format)
    }

    public func write(_ samples: UnsafeRawBufferPointer) throws { try inner.write(samples) }
    public func close() throws {}
    public func finish() throws { if format != nil { try inner.close() } }
}

/// The same for `--video-out`.
public final class ContinuousVideoSink: VideoSink, @unchecked Sendable {
    private let inner: any VideoSink

    public init(_ inner: any VideoSink) { self.inner = inner }

    public func present(_ frame: Frame, info: VideoFrameInfo) throws { try inner.present(frame, info: info) }
    public func close() throws {}
    public func finish() throws { try inner.close() }
}
