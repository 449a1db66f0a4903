import CFFmpeg
import Foundation

/// Writes one line per presented frame (`--video-out`): the time in seconds,
/// then the MD5 of the picture packed with alignment 1 in its decoded pixel
/// format — the hash column of `ffmpeg -f framemd5`.
public final class FrameHashSink: VideoSink, @unchecked Sendable {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    public init(path: String) throws {
        handle = try OutputFile.open(path)
    }

    public func present(_ frame: Frame, info: VideoFrameInfo) throws {
        let f = frame.pointer
        let format = AVPixelFormat(f.pointee.format)
        let size = av_image_get_buffer_size(format, f.pointee.width, f.pointee.height, 1)
        guard size > 0 else { throw FFmpegError(code: size, context: "cannot hash a video frame") }
        if buffer.count < Int(size) { buffer = [UInt8](repeating: 0, count: Int(size)) }
        var digest = [UInt8](repeating: 0, count: 16)
        let data = f.pointee.data
        let lines = f.pointee.linesize
        let planes: [UnsafePointer<UInt8>?] = [data.0, data.1, data.2, data.3].map { $0.map { UnsafePointer($0) } }
        let strides: [Int32] = [lines.0, lines.1, lines.2, lines.3]
        let copied = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
            let result = av_image_copy_to_buffer(out.baseAddress, size, planes, strides, format, f.pointee.width, f.pointee.height, 1)
            if result >= 0 { av_md5_sum(&digest, out.baseAddress, Int(size)) }
            return result
        }
        try check(copied, "cannot hash a video frame")
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        try handle.write(contentsOf: Data(String(format: "%.6f %@\n", info.time, hex).utf8))
    }

    public func close() throws {
        try handle.close()
    }
}

/// A recording's file that cannot be opened, in one line.
public struct OutputFileError: Error, CustomStringConvertible {
    public let description: String
}

/// Opens a recording's file as a shell's `>` does: created or truncated in
/// place, through a symlink, a device as itself. (Foundation's createFile
/// writes a new file and renames it over the path: `--video-out /dev/null`
/// as root replaced the device with a regular file.)
enum OutputFile {
    static func open(_ path: String) throws -> FileHandle {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == EISDIR ? "it is a folder" : String(cString: strerror(errno))
            throw OutputFileError(description: "cannot write \(path): \(reason)")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}
