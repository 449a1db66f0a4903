import CFFmpeg

extension Frame {
    /// The decoded picture turned clockwise by `rotation` (ffmpeg's
    /// `transpose=clock`, `hflip,vflip` or `transpose=cclock`), for planar
    /// 8-bit formats whose chroma is subsampled alike both ways; nil for others.
    public func upright(rotation: Int) throws(FFmpegError) -> Frame? {
        let f = pointer
        let format = AVPixelFormat(f.pointee.format)
        let chromaShift: Int
        switch format {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: chromaShift = 1
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: chromaShift = 0
        default: return nil
        }
        let width = Int(f.pointee.width), height = Int(f.pointee.height)
        let quarter = rotation == 90 || rotation == 270
        let out = Frame()
        let o = out.pointer
        o.pointee.format = f.pointee.format
        o.pointee.width = Int32(quarter ? height : width)
        o.pointee.height = Int32(quarter ? width : height)
        o.pointee.color_range = f.pointee.color_range
        o.pointee.colorspace = f.pointee.colorspace
        let sar = f.pointee.sample_aspect_ratio
        o.pointee.sample_aspect_ratio = quarter ? AVRational(num: sar.den, den: sar.num) : sar
        try check(av_frame_get_buffer(o, 0), "terminal picture")
        let sources = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2]
        let sourceStrides = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2].map(Int.init)
        let targets = [o.pointee.data.0, o.pointee.data.1, o.pointee.data.2]
        let targetStrides = [o.pointee.linesize.0, o.pointee.linesize.1, o.pointee.linesize.2].map(Int.init)
        for plane in 0..<3 {
            guard let source = sources[plane], let target = targets[plane] else { return nil }
            let shift = plane == 0 ? 0 : chromaShift
            let planeWidth = (width + (1 << shift) - 1) >> shift, planeHeight = (height + (1 << shift) - 1) >> shift
            let (inStride, outStride) = (sourceStrides[plane], targetStrides[plane])
            for y in 0..<planeHeight {
                let row = source + y * inStride
                for x in 0..<planeWidth {
                    switch rotation {
                    case 90: target[x * outStride + (planeHeight - 1 - y)] = row[x]
                    case 270: target[(planeWidth - 1 - x) * outStride + y] = row[x]
                    default: target[(planeHeight - 1 - y) * outStride + (planeWidth - 1 - x)] = row[x]
                    }
                }
            }
        }
        return out
    }
}
