import Foundation
import MediaplayCommandLine
import MediaCache
import MediaFeed

/// A feed and where it came from, as the user named it.
struct LoadedFeed {
    var feed: Feed
    /// The path or URL the feed was read from, for messages.
    var source: String
}

/// Reads a feed from a path or an http(s) URL, turning every failure into a
/// one-line error with the right exit code (missing 66, malformed 65,
/// unreachable 69).
enum FeedLoading {
    static let maximumFeedBytes: Int64 = 16 << 20

    static func load(_ location: String) throws(CLIError) -> LoadedFeed {
        let scheme = location.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() }
        if location.contains("://"), let scheme, scheme == "http" || scheme == "https" {
            return try loadRemote(location)
        }
        if location.contains("://"), let scheme, scheme != "file" {
            throw CLIError("unsupported feed URL \"\(location)\" (use a file path, or an http or https URL)", exitCode: .usage)
        }
        let path = location.hasPrefix("file://") ? (URL(string: location)?.path ?? location) : location
        return try loadFile(absolutePath(path), shownAs: location)
    }

    private static func loadFile(_ path: String, shownAs name: String) throws(CLIError) -> LoadedFeed {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("feed not found: \(name) (check the path, or pass --feed PATH)", exitCode: .noInput)
        }
        if isDirectory.boolValue {
            throw CLIError("feed \(name) is a folder, not a JSON file (pass --feed FOLDER/media.json)", exitCode: .noInput)
        }
        let bytes: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let data = try handle.read(upToCount: Int(maximumFeedBytes) + 1) ?? Data()
            if data.count > maximumFeedBytes {
                throw CLIError("feed \(name) is larger than \(maximumFeedBytes >> 20) MiB; is it really a feed?", exitCode: .dataError)
            }
            bytes = [UInt8](data)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot read feed \(name): \(describe(error)) (check its permissions)", exitCode: .noInput)
        }
        return try decode(bytes, origin: .file(path: path), name: name)
    }

    private static func loadRemote(_ location: String) throws(CLIError) -> LoadedFeed {
        guard let url = URL(string: location), url.host?.isEmpty == false else {
            throw CLIError("feed URL \"\(location)\" is not a valid URL", exitCode: .usage)
        }
        let bytes: [UInt8]
        do {
            bytes = try HTTPGet.fetch(url, maximumBytes: maximumFeedBytes)
        } catch {
            switch error.kind {
            case let .http(status) where status == 404 || status == 410:
                throw CLIError("feed not found: \(error.message) (check the URL)", exitCode: .noInput)
            case .tooLarge:
                throw CLIError("feed \(location) is larger than \(maximumFeedBytes >> 20) MiB; is it really a feed?", exitCode: .dataError)
            default:
                throw CLIError("cannot fetch feed \(location): \(error.message) (check the network, then retry)", exitCode: .unavailable)
            }
        }
        return try decode(bytes, origin: .remote(url), name: location)
    }

    private static func decode(_ bytes: [UInt8], origin: FeedOrigin, name: String) throws(CLIError) -> LoadedFeed {
        do {
            return LoadedFeed(feed: try FeedDecoder.decode(bytes, origin: origin), source: name)
        } catch {
            throw CLIError("\(name):\(error.position.line):\(error.position.column): \(error.message)", exitCode: .dataError)
        }
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let message = strerror(Int32(underlying.code)) {
            return String(cString: message)
        }
        return nsError.localizedDescription
    }
}
