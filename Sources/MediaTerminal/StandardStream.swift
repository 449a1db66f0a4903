import Foundation
import MediaModel

/// Writes to the program's own standard output and error that never trap.
/// Foundation's `FileHandle.write(_:)` ends the process when the write fails
/// (a closed descriptor, a full disk, a reader gone): a message about a
/// finished playback must not turn it into a crash.
/// The streams are the running command's (`CommandContext.current`): the
/// process's own, or those a test captures.
public enum StandardStream {
    /// Writes `text` to standard error; a failure is ignored (there is
    /// nowhere left to report it).
    public static func error(_ text: String) {
        _ = write(Array(text.utf8), to: CommandContext.current.error)
    }

    /// Writes `bytes` to standard output; false when it could not be
    /// written whole (the caller decides whether that ends its work).
    @discardableResult
    public static func output(_ bytes: some Collection<UInt8>) -> Bool {
        write(Array(bytes), to: CommandContext.current.output)
    }

    /// Writes `text` and a newline to standard output, as `print` would
    /// (a failure ignored, as `print` ignores it).
    public static func line(_ text: String) {
        _ = output(Array((text + "\n").utf8))
    }

    /// Writes every byte to `sink`; false on a failure.
    @discardableResult
    public static func write(_ bytes: [UInt8], to sink: CommandContext.Sink) -> Bool {
        switch sink {
        case let .descriptor(descriptor): return write(bytes, to: descriptor)
        case let .capture(capture):
            capture.append(bytes)
            return true
        }
    }

    /// Writes every byte to `descriptor`, retrying short writes and
    /// interruptions; false on any other failure.
    @discardableResult
    public static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// Opens /dev/null on descriptors 0, 1 and 2 where they are closed, so
    /// that the next file or socket the program opens never becomes its
    /// standard error (with stderr closed, `quit 2>&-` wrote its message
    /// into the control socket). Call first thing in `main`.
    public static func reserveStandardDescriptors() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", O_RDWR)
            // open returns the lowest free descriptor: this one.
            if opened > 2 { close(opened) }
        }
    }
}
