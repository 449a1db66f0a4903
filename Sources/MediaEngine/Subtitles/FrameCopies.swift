import CFFmpeg

/// Writable copies of 4:2:0 pictures from pooled buffers: a picture with a
/// subtitle drawn in is a copy (the decoder keeps its own for reference),
/// and fresh buffers every frame cost a page fault per 4 KiB at 1080p.
/// Used by one thread (the video decoder's); a buffer goes back to its
/// pool when the last frame using it is freed.
final class FrameCopies {
    private var pools: [OpaquePointer?] = [nil, nil, nil]
    private var sizes = [0, 0, 0]

    deinit {
        for index in pools.indices { av_buffer_pool_uninit(&pools[index]) }
    }

    /// A copy of `source` (4:2:0, 8 bits) in buffers of its own; nil if memory ran out.
    func copy(_ source: UnsafeMutablePointer<AVFrame>) -> Frame? {
        let frame = Frame()
        let f = frame.pointer
        f.pointee.format = source.pointee.format
        f.pointee.width = source.pointee.width
        f.pointee.height = source.pointee.height
        let height = Int(source.pointee.height)
        let lineSizes = [source.pointee.linesize.0, source.pointee.linesize.1, source.pointee.linesize.2]
        var buffers: [UnsafeMutablePointer<AVBufferRef>] = []
        for plane in 0..<3 {
            let rows = plane == 0 ? height : (height + 1) / 2
            let size = Int(lineSizes[plane]) * rows
            guard size > 0 else { return nil }
            if sizes[plane] != size {
                av_buffer_pool_uninit(&pools[plane])
                pools[plane] = av_buffer_pool_init(size, nil)
                sizes[plane] = size
            }
            guard let buffer = av_buffer_pool_get(pools[plane]) else { return nil }
            buffers.append(buffer)
        }
        f.pointee.buf.0 = buffers[0]
        f.pointee.buf.1 = buffers[1]
        f.pointee.buf.2 = buffers[2]
        f.pointee.data.0 = buffers[0].pointee.data
        f.pointee.data.1 = buffers[1].pointee.data
        f.pointee.data.2 = buffers[2].pointee.data
        f.pointee.linesize.0 = lineSizes[0]
        f.pointee.linesize.1 = lineSizes[1]
        f.pointee.linesize.2 = lineSizes[2]
        guard av_frame_copy(f, source) >= 0, av_frame_copy_props(f, source) >= 0 else { return nil }
        return frame
    }
}
