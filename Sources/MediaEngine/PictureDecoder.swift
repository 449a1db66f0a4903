import CFFmpeg

/// A decoded picture as 8-bit RGBA rows (alpha not premultiplied), packed
/// with no padding: what terminal image renderers take.
public struct RGBAPicture: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// `width * height * 4` bytes, row by row.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// One still picture out of a media file, scaled down: an image itself, a
/// frame from early in a video, or an audio file's cover art. For
/// thumbnails; it blocks on file I/O and decoding, so call it off the
/// cooperative pool.
public enum PictureDecoder {
    /// The picture scaled to fit `maxWidth` × `maxHeight` pixels (never
    /// enlarged), keeping its display aspect ratio.
    public static func picture(path: String, maxWidth: Int, maxHeight: Int) throws(FFmpegError) -> RGBAPicture {
        let demuxer = try Demuxer(path: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let frame = try firstFrame(demuxer, name: name)
        return try scale(frame, maxWidth: max(1, maxWidth), maxHeight: max(1, maxHeight), name: name)
    }

    private static func firstFrame(_ demuxer: Demuxer, name: String) throws(FFmpegError) -> Frame {
        if let index = demuxer.videoStreamIndex {
            let decoder = try Decoder(stream: demuxer.stream(index), name: name, strict: false)
            // A frame a little way into a video says more than its first
            // (often black) one; the seek lands on the keyframe before.
            if !demuxer.isStillImage, let duration = demuxer.duration, duration > 4 {
                try? demuxer.seek(to: min(duration * 0.1, 10))
            }
            let packet = Packet()
            while try demuxer.readPacket(into: packet) {
                defer { av_packet_unref(packet.pointer) }
                guard packet.pointer.pointee.stream_index == index else { continue }
                _ = try decoder.send(packet)
                if let frame = try decoder.receive() { return frame }
            }
            _ = try decoder.send(nil)
            if let frame = try decoder.receive() { return frame }
            throw FFmpegError(context: "cannot decode \(name)", message: "no picture in the file")
        }
        // Audio: the cover art libavformat keeps as an attached picture.
        for index in 0..<Int32(demuxer.context.pointee.nb_streams) {
            let stream = demuxer.stream(index)
            guard stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 else { continue }
            let decoder = try Decoder(stream: stream, name: name, strict: false)
            let packet = Packet()
            guard av_packet_ref(packet.pointer, &stream.pointee.attached_pic) >= 0 else { break }
            _ = try decoder.send(packet)
            _ = try decoder.send(nil)
            if let frame = try decoder.receive() { return frame }
        }
        throw FFmpegError(context: "no picture in \(name)", message: "it has no video stream or cover art")
    }

    /// The output size: the display size (sample aspect ratio applied)
    /// shrunk to fit the box.
    static func fittedSize(width: Int, height: Int, sampleAspect: Double, maxWidth: Int, maxHeight: Int) -> (Int, Int) {
        // The file's aspect: a garbage one (0, inf, NaN, 1e9) is read as square.
        let aspect = sampleAspect.isFinite && sampleAspect > 0.01 && sampleAspect < 100 ? sampleAspect : 1
        let displayWidth = Double(max(width, 1)) * aspect
        let displayHeight = Double(max(height, 1))
        let factor = min(1, Double(maxWidth) / displayWidth, Double(maxHeight) / displayHeight)
        return (max(1, Int((displayWidth * factor).rounded())), max(1, Int((displayHeight * factor).rounded())))
    }

    /// A decoded frame as an RGBA picture that fits the box, turned upright
    /// by the stream's `rotation` (a video's frame shown where a picture
    /// goes: browse).
    public static func picture(from frame: Frame, maxWidth: Int, maxHeight: Int, rotation: Int = 0) throws -> RGBAPicture {
        let upright = rotation == 0 ? nil : try frame.upright(rotation: rotation)
        return try scale(upright ?? frame, maxWidth: maxWidth, maxHeight: maxHeight, name: "a video frame")
    }

    private static func scale(_ frame: Frame, maxWidth: Int, maxHeight: Int, name: String) throws(FFmpegError) -> RGBAPicture {
        let source = frame.pointer
        let ratio = source.pointee.sample_aspect_ratio
        let (width, height) = fittedSize(
            width: Int(source.pointee.width), height: Int(source.pointee.height),
            sampleAspect: ratio.num > 0 && ratio.den > 0 ? Double(ratio.num) / Double(ratio.den) : 1,
            maxWidth: maxWidth, maxHeight: maxHeight
        )
        guard let scaler = sws_getContext(
            source.pointee.width, source.pointee.height, AVPixelFormat(source.pointee.format),
            Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(SWS_AREA), nil, nil, nil
        ) else {
            throw FFmpegError(context: "cannot scale the picture of \(name)", message: "unsupported pixel format")
        }
        defer { sws_freeContext(scaler) }
        // swscale's vector paths write past a row's end: it scales into a
        // frame from libavutil's allocator (aligned, rows padded), and the
        // rows are copied out packed.
        let scaled = Frame()
        // Kept alive until the rows are copied out (nothing else uses it).
        defer { withExtendedLifetime(scaled) {} }
        let target = scaled.pointer
        target.pointee.format = AV_PIX_FMT_RGBA.rawValue
        target.pointee.width = Int32(width)
        target.pointee.height = Int32(height)
        let allocated = av_frame_get_buffer(target, 0)
        guard allocated >= 0 else { throw FFmpegError(code: allocated, context: "cannot scale the picture of \(name)") }
        let data = source.pointee.data
        let sourcePlanes: [UnsafePointer<UInt8>?] = [data.0, data.1, data.2, data.3].map { $0.map { UnsafePointer($0) } }
        let lines = source.pointee.linesize
        let sourceStrides: [Int32] = [lines.0, lines.1, lines.2, lines.3]
        var planes: [UnsafeMutablePointer<UInt8>?] = [target.pointee.data.0, nil, nil, nil]
        var strides: [Int32] = [target.pointee.linesize.0, 0, 0, 0]
        guard sws_scale(scaler, sourcePlanes, sourceStrides, 0, source.pointee.height, &planes, &strides) > 0, let rows = target.pointee.data.0 else {
            throw FFmpegError(context: "cannot scale the picture of \(name)", message: "swscale failed")
        }
        let rowBytes = width * 4, stride = Int(target.pointee.linesize.0)
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            for row in 0..<height {
                (buffer.baseAddress! + row * rowBytes).update(from: rows + row * stride, count: rowBytes)
            }
            count = rowBytes * height
        }
        return RGBAPicture(width: width, height: height, pixels: pixels)
    }
}
