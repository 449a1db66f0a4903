import CFFmpeg
import Foundation

/// libass's pictures blended into a planar 4:2:0 8-bit frame with the same
/// integer arithmetic libavfilter's `subtitles` filter uses (its drawing
/// utilities: each pixel's coverage times the colour's alpha, chroma from
/// the 2×2 coverage summed and divided by four, the colour converted to
/// Y'CbCr by the BT.601 matrix in limited range, full range for yuvj), so
/// the result is the filter's to the bit; here as plain loops the compiler
/// vectorises instead of a function call per pixel.
enum AssBlend {
    /// The formats blended here; others go through the filter itself.
    static func supports(_ format: Int32) -> Bool {
        format == AV_PIX_FMT_YUV420P.rawValue || format == AV_PIX_FMT_YUVJ420P.rawValue
    }

    /// The colour's three components as the filter computes them (8 bits).
    static func components(red: UInt32, green: UInt32, blue: UInt32, fullRange: Bool) -> (UInt32, UInt32, UInt32) {
        // BT.601 (SMPTE 170M) luma coefficients, as libavutil gives them.
        let cr = 29900.0 / 100000.0, cg = 58700.0 / 100000.0, cb = 11400.0 / 100000.0
        let bscale = 0.5 / (cb - 1.0), rscale = 0.5 / (cr - 1.0)
        let matrix: [[Double]] = [[cr, cg, cb], [bscale * cr, bscale * cg, 0.5], [0.5, rscale * cg, rscale * cb]]
        let rgb = [Double(red) / 255.0, Double(green) / 255.0, Double(blue) / 255.0]
        var yuv = matrix.map { row in rgb[0] * row[0] + rgb[1] * row[1] + rgb[2] * row[2] }
        for index in 0..<3 {
            let chroma = index > 0
            if !fullRange {
                yuv[index] *= (chroma ? 224.0 : 219.0) / 255.0
                yuv[index] += (chroma ? 128.0 : 16.0) / 255.0
            } else if chroma {
                yuv[index] += 0.5
            }
        }
        func value(_ component: Double) -> UInt32 { UInt32(truncatingIfNeeded: Int64(component * 255.0 + 0.5)) }
        return (value(yuv[0]), value(yuv[1]), value(yuv[2]))
    }

    /// Blends every picture of the list into `frame` (writable, 4:2:0 8-bit).
    static func blend(_ images: UnsafeMutablePointer<mp_ass_image>?, into frame: UnsafeMutablePointer<AVFrame>) {
        let fullRange = frame.pointee.format == AV_PIX_FMT_YUVJ420P.rawValue
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        var image = images
        while let current = image {
            blend(current.pointee, into: frame, width: width, height: height, fullRange: fullRange)
            image = current.pointee.next
        }
    }

    private static func blend(_ image: mp_ass_image, into frame: UnsafeMutablePointer<AVFrame>, width: Int, height: Int, fullRange: Bool) {
        let color = image.color
        let opacity = (0xFF &- color) & 0xFF
        guard opacity != 0, let bitmap = image.bitmap else { return }
        let alpha = (0x10307 &* opacity &+ 3) >> 8
        let (y, u, v) = components(red: color >> 24, green: (color >> 16) & 0xFF, blue: (color >> 8) & 0xFF, fullRange: fullRange)
        // The picture clipped to the frame.
        var x0 = Int(image.dst_x), maskWidth = Int(image.w), maskX = 0
        var y0 = Int(image.dst_y), maskHeight = Int(image.h), maskY = 0
        clip(&x0, &maskWidth, &maskX, limit: width)
        clip(&y0, &maskHeight, &maskY, limit: height)
        guard maskWidth > 0, maskHeight > 0 else { return }
        let stride = Int(image.stride)
        let mask = UnsafePointer(bitmap) + maskY * stride
        let planes = [(frame.pointee.data.0, frame.pointee.linesize.0, y), (frame.pointee.data.1, frame.pointee.linesize.1, u), (frame.pointee.data.2, frame.pointee.linesize.2, v)]
        for (index, (data, lineSize, source)) in planes.enumerated() {
            guard let data else { continue }
            let sub = index == 0 ? 0 : 1
            let origin = data + (y0 >> sub) * Int(lineSize) + (x0 >> sub)
            if sub == 0 {
                blendFull(origin, lineSize: Int(lineSize), mask: mask + maskX, stride: stride, width: maskWidth, height: maskHeight, source: source, alpha: alpha)
            } else {
                blendHalved(origin, lineSize: Int(lineSize), mask: mask, stride: stride, maskX: maskX, x: x0, y: y0, width: maskWidth, height: maskHeight, source: source, alpha: alpha)
            }
        }
    }

    /// Full-resolution plane: one coverage value per pixel.
    private static func blendFull(_ origin: UnsafeMutablePointer<UInt8>, lineSize: Int, mask: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, source: UInt32, alpha: UInt32) {
        for row in 0..<height {
            let line = origin + row * lineSize
            let coverage = mask + row * stride
            for column in 0..<width {
                let weight = UInt32(coverage[column]) &* alpha
                let blended = ((0x0101_0101 &- weight) &* UInt32(line[column]) &+ weight &* source) >> 24
                line[column] = UInt8(truncatingIfNeeded: blended)
            }
        }
    }

    /// Half-resolution plane: each sample weighs the 2×2 coverage under it
    /// (fewer at a picture's odd edges), summed and divided by four.
    private static func blendHalved(
        _ origin: UnsafeMutablePointer<UInt8>, lineSize: Int, mask: UnsafePointer<UInt8>, stride: Int, maskX: Int, x: Int, y: Int,
        width: Int, height: Int, source: UInt32, alpha: UInt32
    ) {
        let (left, columns, right) = bounds(start: x, length: width)
        let (top, rows, bottom) = bounds(start: y, length: height)
        var line = origin
        var coverage = mask
        if top > 0 {
            blendHalvedLine(line, coverage: coverage, stride: stride, maskX: maskX, band: top, left: left, columns: columns, right: right, source: source, alpha: alpha)
            line += lineSize
            coverage += top * stride
        }
        for _ in 0..<rows {
            blendHalvedLine(line, coverage: coverage, stride: stride, maskX: maskX, band: 2, left: left, columns: columns, right: right, source: source, alpha: alpha)
            line += lineSize
            coverage += 2 * stride
        }
        if bottom > 0 {
            blendHalvedLine(line, coverage: coverage, stride: stride, maskX: maskX, band: bottom, left: left, columns: columns, right: right, source: source, alpha: alpha)
        }
    }

    /// One row of half-resolution samples over `band` (1 or 2) mask rows.
    @inline(__always)
    private static func blendHalvedLine(
        _ line: UnsafeMutablePointer<UInt8>, coverage: UnsafePointer<UInt8>, stride: Int, maskX: Int, band: Int,
        left: Int, columns: Int, right: Int, source: UInt32, alpha: UInt32
    ) {
        @inline(__always) func put(_ sample: UnsafeMutablePointer<UInt8>, _ total: UInt32) {
            let weight = (total >> 2) &* alpha
            sample.pointee = UInt8(truncatingIfNeeded: ((0x0101_0101 &- weight) &* UInt32(sample.pointee) &+ weight &* source) >> 24)
        }
        let first = coverage + maskX
        let second = band == 2 ? first + stride : nil
        var sample = line
        var column = 0
        if left > 0 {
            put(sample, UInt32(first[0]) &+ (second.map { UInt32($0[0]) } ?? 0))
            sample += 1
            column = 1
        }
        if let second {
            for pair in 0..<columns {
                let at = column + 2 * pair
                put(sample + pair, UInt32(first[at]) &+ UInt32(first[at + 1]) &+ UInt32(second[at]) &+ UInt32(second[at + 1]))
            }
        } else {
            for pair in 0..<columns {
                let at = column + 2 * pair
                put(sample + pair, UInt32(first[at]) &+ UInt32(first[at + 1]))
            }
        }
        if right > 0 {
            let at = column + 2 * columns
            put(sample + columns, UInt32(first[at]) &+ (second.map { UInt32($0[at]) } ?? 0))
        }
    }

    /// A run of `length` pixels from `start` split for 2× subsampling: a
    /// lone first pixel (odd start), whole pairs, a lone last pixel.
    private static func bounds(start: Int, length: Int) -> (first: Int, pairs: Int, last: Int) {
        let first = min((-start) & 1, length)
        let rest = length - first
        return (first, rest >> 1, rest & 1)
    }

    /// Clips a run to 0..<limit: its start, length and how much of the mask was cut before.
    private static func clip(_ start: inout Int, _ length: inout Int, _ skipped: inout Int, limit: Int) {
        skipped = 0
        if start < 0 {
            skipped = -start
            length += start
            start = 0
        }
        if start + length > limit { length = limit - start }
    }
}
