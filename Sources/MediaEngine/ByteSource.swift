import CFFmpeg
import Foundation
import MediaInterfaces

/// libavformat's view of a `ByteSource`: an AVIOContext whose read and seek
/// callbacks go to the source. Lives as long as the demuxer that uses it.
final class ByteSourceIO {
    let source: any ByteSource
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    private var position: Int64 = 0
    private let size: Int64?
    /// Why the last read failed: the source's own words (a download error).
    private(set) var failure: String?

    static let bufferSize: Int32 = 64 * 1024

    init(source: any ByteSource) throws(FFmpegError) {
        self.source = source
        do {
            size = try source.size()
        } catch {
            throw FFmpegError(context: "cannot open \(source.name)", message: "\(error)")
        }
        guard let buffer = av_malloc(Int(Self.bufferSize)) else {
            throw FFmpegError(context: "cannot open \(source.name)", message: "out of memory")
        }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, 0, opaque, { opaque, buffer, count in
            guard let opaque, let buffer else { return mp_averror(EINVAL) }
            return Unmanaged<ByteSourceIO>.fromOpaque(opaque).takeUnretainedValue().read(buffer, Int(count))
        }, nil, { opaque, offset, whence in
            guard let opaque else { return Int64(mp_averror(EINVAL)) }
            return Unmanaged<ByteSourceIO>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence)
        })
        if context == nil {
            av_free(buffer)
            throw FFmpegError(context: "cannot open \(source.name)", message: "out of memory")
        }
        // A live stream is read in order: libavformat must not seek in it
        // (it probes within its own buffer).
        if source.isLive { context?.pointee.seekable = 0 }
    }

    deinit {
        if let context {
            // libavformat may have replaced the buffer; free the one it holds now.
            av_free(context.pointee.buffer)
            var owned: UnsafeMutablePointer<AVIOContext>? = context
            avio_context_free(&owned)
        }
    }

    private func read(_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int32 {
        do {
            let got = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count), at: position)
            if got == 0 { return mp_averror_eof() }
            position += Int64(got)
            return Int32(got)
        } catch {
            failure = "\(error)"
            return mp_averror(EIO)
        }
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        switch whence & ~Int32(AVSEEK_FORCE) {
        case Int32(AVSEEK_SIZE): return size ?? Int64(mp_averror(ENOSYS))
        case SEEK_SET: position = offset
        case SEEK_CUR: position += offset
        case SEEK_END:
            guard let size else { return Int64(mp_averror(ENOSYS)) }
            position = size + offset
        default: return Int64(mp_averror(EINVAL))
        }
        return position
    }
}
