import Foundation
import MediaModel
import Logging

/// swift-log output to a file: one line per message, with the time and level.
/// The file starts over (the old one kept as `.1`) once it passes 1 MiB.
public struct FileLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let file: LogFile
    /// The lines' times come from it.
    private let clock: any MediaClock

    public init(path: String, clock: any MediaClock = SystemClock.shared) {
        file = LogFile(path: path)
        self.clock = clock
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let time = clock.wallTime.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        // A feed's or item's URL in a message: its password is not kept.
        file.append("\(time) \(event.level) \(event.message.description.redactingUserinfo)\n")
    }
}

final class LogFile: @unchecked Sendable {
    static let maximumSize: off_t = 1 << 20
    private let path: String
    private let lock = NSLock()
    private var descriptor: Int32 = -1

    init(path: String) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        // Ours (made 0700 when new), or no log: never a link's target.
        guard OwnFolder.prepare(folder, privateOnly: false) == nil else { return }
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > Self.maximumSize { rename(path, path + ".1") }
        let opened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        if opened >= 0, fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            descriptor = opened
        } else if opened >= 0 {
            close(opened)
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func append(_ line: String) {
        let bytes = Array(line.utf8)
        lock.withLock {
            guard descriptor >= 0 else { return }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }
}
