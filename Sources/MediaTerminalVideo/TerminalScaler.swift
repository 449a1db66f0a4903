import CFFmpeg
import Foundation
import MediaEngine
import MediaTerminal

/// A frame scaled for the terminal: RGBA, `width`×`height`.
struct ScaledPicture {
    let frame: Frame
    let width: Int
    let height: Int
}

/// Scales decoded frames to RGBA at a terminal's picture size in one
/// libswscale pass (bilinear; the same as `ffmpeg -vf
/// scale=W:H:flags=bilinear,format=rgba`), then turns it upright by the
/// stream's rotation. One per sink; used by one thread at a time.
final class TerminalScaler: @unchecked Sendable {
    private var context: OpaquePointer?
    private let lock = NSLock()

    deinit { sws_freeContext(context) }

    func scale(_ original: Frame, into area: PictureArea, rotation requested: Int) throws -> ScaledPicture? {
        try lock.withLock {
            // Upright before scaling where the format allows, as ffmpeg's
            // autorotation does (then the scaled frame is ffmpeg's); else the
            // scaled picture is turned.
            var frame = original
            var rotation = requested
            if rotation != 0, let upright = try original.upright(rotation: rotation) {
                frame = upright
                rotation = 0
            }
            let f = frame.pointer
            let turned = rotation == 90 || rotation == 270
            // The picture as shown: a quarter turn swaps its sides.
            var displayWidth = Int(f.pointee.width), displayHeight = Int(f.pointee.height)
            let sar = f.pointee.sample_aspect_ratio
            if sar.num > 0 && sar.den > 0 { displayWidth = Int((Double(displayWidth) * Double(sar.num) / Double(sar.den)).rounded()) }
            if turned { swap(&displayWidth, &displayHeight) }
            let fitted = area.fit(width: displayWidth, height: displayHeight)
            // Scaled before it is turned: to the fitted size with sides swapped back.
            let (width, height) = turned ? (fitted.height, fitted.width) : (fitted.width, fitted.height)
            context = sws_getCachedContext(
                context, f.pointee.width, f.pointee.height, AVPixelFormat(f.pointee.format),
                Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(SWS_BILINEAR), nil, nil, nil
            )
            guard let context else { return nil }
            let scaled = try Self.rgbaFrame(width: width, height: height)
            let s = scaled.pointer
            let sourcePlanes: [UnsafePointer<UInt8>?] = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2, f.pointee.data.3].map { $0.map { UnsafePointer($0) } }
            let sourceStrides: [Int32] = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, f.pointee.linesize.3]
            var planes: [UnsafeMutablePointer<UInt8>?] = [s.pointee.data.0, nil, nil, nil]
            var strides: [Int32] = [s.pointee.linesize.0, 0, 0, 0]
            guard sws_scale(context, sourcePlanes, sourceStrides, 0, f.pointee.height, &planes, &strides) > 0 else { return nil }
            guard rotation != 0 else { return ScaledPicture(frame: scaled, width: width, height: height) }
            return try Self.turn(scaled, width: width, height: height, by: rotation)
        }
    }

    /// A new RGBA frame with its buffer.
    private static func rgbaFrame(width: Int, height: Int) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.format = AV_PIX_FMT_RGBA.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        let code = av_frame_get_buffer(frame.pointer, 0)
        if code < 0 { throw FFmpegError(code: code, context: "terminal picture") }
        return frame
    }

    /// The RGBA picture turned clockwise by 90, 180 or 270 degrees.
    private static func turn(_ picture: Frame, width: Int, height: Int, by rotation: Int) throws -> ScaledPicture {
        let turned = rotation == 90 || rotation == 270
        let (outWidth, outHeight) = turned ? (height, width) : (width, height)
        let out = try rgbaFrame(width: outWidth, height: outHeight)
        let o = out.pointer
        let inStride = Int(picture.pointer.pointee.linesize.0), outStride = Int(o.pointee.linesize.0)
        let source = UnsafeRawPointer(picture.pointer.pointee.data.0!).assumingMemoryBound(to: UInt32.self)
        let target = UnsafeMutableRawPointer(o.pointee.data.0!).assumingMemoryBound(to: UInt32.self)
        for y in 0..<height {
            for x in 0..<width {
                let (tx, ty): (Int, Int)
                switch rotation {
                case 90: (tx, ty) = (height - 1 - y, x)
                case 180: (tx, ty) = (width - 1 - x, height - 1 - y)
                default: (tx, ty) = (y, width - 1 - x)
                }
                target[ty * outStride / 4 + tx] = source[y * inStride / 4 + x]
            }
        }
        return ScaledPicture(frame: out, width: outWidth, height: outHeight)
    }
}
