import CFFmpeg
import Foundation

/// Bytes the engine reads media from when they are not simply a file: a
/// cache entry that is still downloading, say. Reads may block (the engine
/// calls them from its reader thread only).
public protocol ByteSource: AnyObject, Sendable {
    /// A name for messages, and a hint for format probing (its extension).
    var name: String { get }
    /// Called with true when a read starts waiting for bytes that are not
    /// there yet, and with false when it stops waiting.
    var onWait: (@Sendable (Bool) -> Void)? { get set }
    /// The total size, if known; may wait for it.
    func size() throws -> Int64?
    /// Reads up to `buffer.count` bytes at `offset`, waiting until at least
    /// one is there; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// Ends every wait, now and later, with an error (playback stops; the
    /// player flags its stop first, so that error is not taken for a failure).
    func interrupt()
    /// A stream with no end (internet radio): read in order only, never
    /// sought; it has no length.
    var isLive: Bool { get }
    /// Bytes that come over a link (a download in progress): a seek far
    /// ahead is made from an estimate (an MP3's table of contents or its
    /// bit rate) and read from there at once (the cache asks for that
    /// range), instead of a scan from the start that waits for every byte
    /// before it.
    var seeksByEstimate: Bool { get }
}

extension ByteSource {
    public var isLive: Bool { false }
    public var seeksByEstimate: Bool { false }
}

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
