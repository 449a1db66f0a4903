import Foundation
import MediaFeed
import MediaModel
import MediaplayCommon

/// A feed and where it came from, as the user named it.
public struct LoadedFeed {
    public var feed: Feed
    /// The path or URL the feed was read from, for messages.
    public var source: String
    /// Set when the server could not be reached and this is the kept copy:
    /// `offline: showing the feed as of … (could not reach …)`.
    public var offlineNotice: String?
    /// The feed's absolute path or URL: what it is known by between runs
    /// (the items seen in it).
    public var identity: String
    /// A folder of media (its items are its files).
    public var isFolder = false
    /// The items' probed details, when loading needed them (a folder's
    /// albums are ordered by their track tags): one per item.
    public var details: [MediaDetails?]?

    public init(feed: Feed, source: String, offlineNotice: String? = nil, identity: String? = nil) {
        self.feed = feed
        self.source = source
        self.offlineNotice = offlineNotice
        self.identity = identity ?? source
    }
}

extension LoadedFeed {
    /// Whether its local files' details are needed as it loads: a folder
    /// (for album order and covers), or local files with no title given.
    public var wantsFileDetails: Bool {
        isFolder || feed.items.contains { item in
            guard item.titleIsDerived, case .file? = item.source else { return false }
            return true
        }
    }

    /// What its local files say of themselves, applied to its items: a
    /// title tag where the feed gave no title; in a folder, its albums put
    /// in the order of their track tags (AlbumOrder) and a file's own cover
    /// art its thumbnail where no cover.jpg is beside it.
    public mutating func applyFileDetails(_ details: [MediaDetails?]) {
        var details = details
        if isFolder {
            let ordered = AlbumOrder.apply(to: feed, details: details)
            feed = ordered.feed
            details = ordered.details
            for index in feed.items.indices where feed.items[index].thumbnail == nil && details[index]?.hasCover == true {
                feed.items[index].thumbnail = feed.items[index].source
            }
        }
        feed.takeTitles(from: details)
        self.details = details
    }
}

/// Why a feed file could not be had: it is missing or unreadable, or it
/// does not read as a feed (one line each; the CLI gives them exit 66 and 65).
public struct FeedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not there, not a file, not readable.
        case unavailable
        /// There, but not a feed (too large, malformed at `name:line:col`).
        case malformed
    }

    public var kind: Kind
    public var message: String
    public var description: String { message }

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

extension CLIError {
    /// A feed file's failure with the exit code the documentation promises:
    /// missing 66 (EX_NOINPUT), malformed 65 (EX_DATAERR).
    public init(_ error: FeedFileError) {
        self.init(error.message, exitCode: error.kind == .malformed ? .dataError : .noInput)
    }
}

/// A feed file on this machine, read and decoded with every failure as a
/// one-line error.
public enum FeedFile {
    /// Far above any hand-kept feed; 100,000 items take about 40 MB.
    public static let maximumBytes: Int64 = 64 << 20

    public static func load(_ path: String, shownAs name: String) throws(FeedFileError) -> LoadedFeed {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            let names = name.contains("/") ? [] : NamedFeeds.names()
            if !names.isEmpty {
                let hint = NearestWord.suggestion(for: name, among: names).map { "did you mean \"\($0)\"? " } ?? ""
                // A few names, not 100,000 imported ones.
                let shown = names.count <= 10 ? names.joined(separator: ", ") : names.prefix(10).joined(separator: ", ") + " and \(names.count - 10) more"
                throw FeedFileError(.unavailable, "no feed named \"\(name)\" and no such file (\(hint)the named feeds are \(shown); see mediaplay feeds)")
            }
            throw FeedFileError(.unavailable, "feed not found: \(name) (check the path, or pass --feed PATH)")
        }
        if isDirectory.boolValue {
            // A folder of media: its files, in path order.
            guard access(path, R_OK | X_OK) == 0 else {
                throw FeedFileError(.unavailable, "cannot read folder \(name): \(String(cString: strerror(errno))) (check its permissions)")
            }
            var loaded = LoadedFeed(feed: FolderFeed.read(path), source: name, identity: path)
            loaded.isFolder = true
            return loaded
        }
        // A FIFO or device would block the read forever (and opening a FIFO
        // waits for a writer): only regular files are feeds.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw FeedFileError(.unavailable, "feed \(name) is not a regular file (a FIFO or device); pass --feed FILE")
        }
        // A file whose name says media (`--feed movie.mp4`) is a feed of
        // itself, as `play FILE` has it: its bytes are no playlist (an
        // MP4's header carries x264's URL, which read as an M3U line).
        if MediaKind.guess(fromExtension: (path as NSString).pathExtension) != nil {
            return LoadedFeed(feed: Feed.single(.file(path)), source: name, identity: path)
        }
        // Read straight into the bytes the parser takes (no Data in between).
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FeedFileError(.unavailable, "cannot read feed \(name): \(String(cString: strerror(errno))) (check its permissions)")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        if fstat(fd, &info) == 0 { bytes.reserveCapacity(Int(min(Int64(info.st_size), maximumBytes)) + 1) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw FeedFileError(.unavailable, "cannot read feed \(name): \(String(cString: strerror(errno))) (check its permissions)")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maximumBytes {
                throw FeedFileError(.malformed, "feed \(name) is larger than \(maximumBytes >> 20) MiB; is it really a feed?")
            }
        }
        return try decode(bytes, origin: .file(path: path), name: name)
    }

    public static func decode(_ bytes: [UInt8], origin: FeedOrigin, name: String) throws(FeedFileError) -> LoadedFeed {
        do {
            let identity: String?
            switch origin {
            case let .file(path): identity = path
            case let .remote(url): identity = url.absoluteString
            case .unknown: identity = nil
            }
            return LoadedFeed(feed: try FeedDecoder.decode(bytes, origin: origin), source: name, identity: identity)
        } catch {
            throw FeedFileError(.malformed, "\(name):\(error.position.line):\(error.position.column): \(error.message)")
        }
    }
}
