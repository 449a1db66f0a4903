import CFFmpeg

/// The PCM format sinks receive: interleaved signed 16-bit at `sampleRate`.
public struct AudioFormat: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int

    public var bytesPerFrame: Int { channels * 2 }

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// The rates and channel counts mediaplay plays. Outside them a header
    /// or a device field overflows (256 channels, a 1 GHz WAV) or one
    /// device buffer lasts minutes (8 Hz), so they are refused up front.
    public static let sampleRates = 1000...384_000
    public static let channelCounts = 1...32

    /// Why this format cannot be played, or nil.
    public var problem: FFmpegError? {
        guard Self.sampleRates.contains(sampleRate), Self.channelCounts.contains(channels) else {
            let noun = channels == 1 ? "channel" : "channels"
            return FFmpegError(context: "unsupported audio format", message: "\(channels) \(noun) at \(sampleRate) Hz")
        }
        return nil
    }
}

/// Converts decoded frames (any sample format) to interleaved s16 with
/// libswresample, at the stream's own rate and channel count by default, as
/// `ffmpeg -f s16le` does, so the output can be compared bit for bit.
final class AudioResampler {
    private var context: OpaquePointer?
    private var inputSignature: (format: Int32, rate: Int32, channels: Int32)?
    private(set) var output: AudioFormat
    private var outputLayout: AVChannelLayout
    /// Reused output buffer.
    private var buffer: [UInt8] = []

    init(output: AudioFormat) {
        self.output = output
        outputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, Int32(output.channels))
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&outputLayout)
    }

    /// Converts `frame` and passes the s16 bytes to `body`.
    func convert(_ frame: Frame, _ body: (UnsafeRawBufferPointer) throws -> Void) throws(FFmpegError) {
        let f = frame.pointer
        let signature = (f.pointee.format, f.pointee.sample_rate, f.pointee.ch_layout.nb_channels)
        if context == nil || inputSignature! != signature {
            try configure(for: f)
            inputSignature = signature
        }
        let capacity = Int(swr_get_out_samples(context, f.pointee.nb_samples))
        try run(inputData: f.pointee.extended_data, inputCount: f.pointee.nb_samples, capacity: capacity, body)
    }

    /// Drains what the resampler still holds (end of stream).
    func flush(_ body: (UnsafeRawBufferPointer) throws -> Void) throws(FFmpegError) {
        guard context != nil else { return }
        let capacity = Int(swr_get_out_samples(context, 0))
        guard capacity > 0 else { return }
        try run(inputData: nil, inputCount: 0, capacity: capacity, body)
    }

    private func run(
        inputData: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, inputCount: Int32, capacity: Int,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws(FFmpegError) {
        let needed = max(capacity, 1) * output.bytesPerFrame
        if buffer.count < needed { buffer = [UInt8](repeating: 0, count: needed) }
        let converted: Int32 = buffer.withUnsafeMutableBufferPointer { out in
            var outPointer: UnsafeMutablePointer<UInt8>? = out.baseAddress
            return withUnsafeMutablePointer(to: &outPointer) { outPlanes in
                inputData.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { inPlanes in
                    swr_convert(context, outPlanes, Int32(capacity), inPlanes, inputCount)
                }
            }
        }
        try check(converted, "audio conversion failed")
        if converted > 0 {
            do {
                try buffer.withUnsafeBytes { raw in
                    try body(UnsafeRawBufferPointer(rebasing: raw[0..<Int(converted) * output.bytesPerFrame]))
                }
            } catch {
                throw FFmpegError(context: "audio output failed", message: "\(error)")
            }
        }
    }

    private func configure(for frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        swr_free(&context)
        var inputLayout = frame.pointee.ch_layout
        let result = swr_alloc_set_opts2(
            &context, &outputLayout, AV_SAMPLE_FMT_S16, Int32(output.sampleRate),
            &inputLayout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil
        )
        try check(result, "cannot set up audio conversion")
        try check(swr_init(context), "cannot set up audio conversion")
    }
}

extension Optional where Wrapped == UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?> {
    fileprivate func withMemoryRebound<T, R>(to type: T.Type, capacity: Int, _ body: (UnsafeMutablePointer<T>?) throws -> R) rethrows -> R {
        guard let pointer = self else { return try body(nil) }
        return try pointer.withMemoryRebound(to: type, capacity: capacity) { try body($0) }
    }
}
