import CFFmpeg

/// One stream's decoder (libavcodec): packets in, frames out.
final class Decoder: @unchecked Sendable {
    private(set) var context: UnsafeMutablePointer<AVCodecContext>
    let timeBase: AVRational
    let kind: AVMediaType
    /// Seconds per frame by the stream's frame rate (video), for frames
    /// without a timestamp.
    let frameDuration: Double
    private let stream: UnsafeMutablePointer<AVStream>
    private let name: String
    private let strict: Bool
    private let threading: Threading

    /// How the codec's threads share the work.
    enum Threading {
        /// As fast as the machine allows (libavcodec's choice: frame and
        /// slice threads, as many as cores + 1).
        case throughput
        /// Fast enough for real time: parts of one picture in parallel
        /// (slices, tiles) but no frames decoded ahead. Each frame thread
        /// holds pictures of its own: at 1080p that was 10 MiB of the peak
        /// and 0.4 s of CPU over 20 s, for speed real time does not need.
        /// Most H.264 has one slice a picture, so that is one thread: above
        /// 1080p at 30 fps, frame threads are kept (`realTimeThreading(for:)`).
        case realTime
    }

    /// The threading for playing `stream` in real time.
    static func realTimeThreading(for stream: UnsafeMutablePointer<AVStream>) -> Threading {
        let parameters = stream.pointee.codecpar.pointee
        let rate = stream.pointee.avg_frame_rate
        let framesPerSecond = rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : 30
        let pixelsPerSecond = Double(parameters.width) * Double(parameters.height) * framesPerSecond
        // 1080p at 30 fps (or 29.97) and below.
        return pixelsPerSecond <= 1920 * 1080 * 30.5 ? .realTime : .throughput
    }

    /// `strict`: treat any damage in the data as an error (for pictures).
    /// The stream must outlive the decoder (the demuxer owns it).
    init(stream: UnsafeMutablePointer<AVStream>, name: String, strict: Bool, threading: Threading = .throughput) throws(FFmpegError) {
        self.stream = stream
        self.name = name
        self.strict = strict
        self.threading = threading
        kind = stream.pointee.codecpar.pointee.codec_type
        timeBase = stream.pointee.time_base
        let rate = stream.pointee.avg_frame_rate
        frameDuration = rate.num > 0 && rate.den > 0 ? Double(rate.den) / Double(rate.num) : 1.0 / 25
        context = try Self.open(stream, name: name, strict: strict, threading: threading)
    }

    private static func open(_ stream: UnsafeMutablePointer<AVStream>, name: String, strict: Bool, threading: Threading) throws(FFmpegError) -> UnsafeMutablePointer<AVCodecContext> {
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw FFmpegError(context: "cannot decode \(name)", message: "no decoder for \(codecName)")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(context: "cannot decode \(name)", message: "out of memory")
        }
        do {
            try check(avcodec_parameters_to_context(context, parameters), "cannot decode \(name)")
            context.pointee.pkt_timebase = stream.pointee.time_base
            // Let libavcodec pick its thread count: threads change speed, not output.
            context.pointee.thread_count = 0
            if threading == .realTime { context.pointee.thread_type = FF_THREAD_SLICE }
            if strict { context.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_BUFFER | AV_EF_CRCCHECK }
            try check(avcodec_open2(context, codec, nil), "cannot decode \(name)")
        } catch {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw error
        }
        return context
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// Sends a packet (nil: end of stream, to drain). False when the decoder
    /// is full and frames must be received first.
    func send(_ packet: Packet?) throws(FFmpegError) -> Bool {
        let result = avcodec_send_packet(context, packet?.pointer)
        if result == FFmpegError.again { return false }
        if result == FFmpegError.eof { return true }
        // A damaged packet is dropped and decoding goes on, as the ffmpeg CLI
        // does (a live stream joined again after a drop starts mid-frame).
        if result == FFmpegError.invalidData, !strict { return true }
        try check(result, "cannot decode \(name)")
        return true
    }

    /// The next decoded frame, or nil when more input is needed or the stream ended.
    func receive() throws(FFmpegError) -> Frame? {
        let frame = Frame()
        let result = avcodec_receive_frame(context, frame.pointer)
        if result == FFmpegError.again || result == FFmpegError.eof { return nil }
        if result == FFmpegError.invalidData, !strict { return nil }
        try check(result, "cannot decode \(name)")
        return frame
    }

    /// After a seek: a fresh decoder, in the same state as one that starts
    /// there (`avcodec_flush_buffers` leaves some decoders' state behind,
    /// and the output would then differ from `ffmpeg -ss`'s).
    func reset() throws(FFmpegError) {
        let fresh = try Self.open(stream, name: name, strict: strict, threading: threading)
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
        context = fresh
    }
}
