import Foundation
import MediaFeed
import MediaplayCommandLine

/// A feed and where it came from, as the user named it.
public struct LoadedFeed {
    public var feed: Feed
    /// The path or URL the feed was read from, for messages.
    public var source: String
    /// Set when the server could not be reached and this is the kept copy:
    /// `offline: showing the feed as of … (could not reach …)`.
    public var offlineNotice: String?

    public init(feed: Feed, source: String, offlineNotice: String? = nil) {
        self.feed = feed
        self.source = source
        self.offlineNotice = offlineNotice
    }
}

/// A feed file on this machine, read and decoded with every failure as a
/// one-line error with its exit code (missing 66, malformed 65).
public enum FeedFile {
    /// Far above any hand-kept feed; 100,000 items take about 40 MB.
    public static let maximumBytes: Int64 = 64 << 20

    public static func load(_ path: String, shownAs name: String) throws(CLIError) -> LoadedFeed {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("feed not found: \(name) (check the path, or pass --feed PATH)", exitCode: .noInput)
        }
        if isDirectory.boolValue {
            throw CLIError("feed \(name) is a folder, not a JSON file (pass --feed FOLDER/media.json)", exitCode: .noInput)
        }
        // A FIFO or device would block the read forever (and opening a FIFO
        // waits for a writer): only regular files are feeds.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw CLIError("feed \(name) is not a regular file (a FIFO or device); pass --feed FILE", exitCode: .noInput)
        }
        // Read straight into the bytes the parser takes (no Data in between).
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CLIError("cannot read feed \(name): \(String(cString: strerror(errno))) (check its permissions)", exitCode: .noInput)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        if fstat(fd, &info) == 0 { bytes.reserveCapacity(Int(min(Int64(info.st_size), maximumBytes)) + 1) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw CLIError("cannot read feed \(name): \(String(cString: strerror(errno))) (check its permissions)", exitCode: .noInput)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maximumBytes {
                throw CLIError("feed \(name) is larger than \(maximumBytes >> 20) MiB; is it really a feed?", exitCode: .dataError)
            }
        }
        return try decode(bytes, origin: .file(path: path), name: name)
    }

    public static func decode(_ bytes: [UInt8], origin: FeedOrigin, name: String) throws(CLIError) -> LoadedFeed {
        do {
            return LoadedFeed(feed: try FeedDecoder.decode(bytes, origin: origin), source: name)
        } catch {
            throw CLIError("\(name):\(error.position.line):\(error.position.column): \(error.message)", exitCode: .dataError)
        }
    }
}
