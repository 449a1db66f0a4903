import Foundation
import MediaListing
import Synchronization
import MediaTerminal
import MediaCache
import MediaCacheFolder
import MediaFeed
import MediaplayCommon
import MediaServers

/// Reads a feed from a path or an http(s) URL, turning every failure into a
/// one-line error with the right exit code (missing 66, malformed 65,
/// unreachable 69). A remote feed's last good copy is kept in the cache's
/// index: each read revalidates it (a 304 costs no download), and when the
/// network or the server is down, the kept copy is used, with a notice.
package enum FeedLoading {
    static let maximumFeedBytes = FeedFile.maximumBytes

    /// The feed the global options name. The offline notice, if any, goes
    /// to stderr unless `announce` is false (browse shows it on screen).
    package static func load(_ global: GlobalOptions, refresh: Bool = false, announce: Bool = true, itemsAsRead: ServerFeeds.ItemsAsRead? = nil) throws(CLIError) -> LoadedFeed {
        try load(try global.feedLocation(), cacheDirectory: global.cacheDirectory, refresh: refresh, announce: announce, itemsAsRead: itemsAsRead)
    }

    /// `cacheDirectory`: where a remote feed is kept (nil: not kept).
    /// `refresh`: a remote feed is fetched whole and must come from the
    /// server (no conditional request, no kept copy).
    /// `itemsAsRead` hears a server's items as its pages are read (a list
    /// made meanwhile: `Listing.Streamed`).
    package static func load(_ location: String, cacheDirectory: String?, refresh: Bool = false, announce: Bool = true, itemsAsRead: ServerFeeds.ItemsAsRead? = nil) throws(CLIError) -> LoadedFeed {
        if ServerFeeds.isServer(location) {
            let progress: (Int) -> Void = announce ? { Self.showProgress($0) } : { _ in }
            let loaded = try ServerFeeds.load(location, cacheDirectory: cacheDirectory, refresh: refresh, progress: progress, itemsAsRead: itemsAsRead)
            if announce, isatty(2) == 1 { StandardStream.error("\r\u{1B}[K") }
            if announce, let notice = loaded.offlineNotice { StandardStream.error("mediaplay: \(DisplayWidth.escaped(notice))\n") }
            return loaded
        }
        let scheme = location.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() }
        if location.contains("://"), let scheme, scheme == "http" || scheme == "https" {
            let loaded = try loadRemote(location, cacheDirectory: cacheDirectory, refresh: refresh)
            if announce, let notice = loaded.offlineNotice { StandardStream.error("mediaplay: \(DisplayWidth.escaped(notice))\n") }
            return loaded
        }
        if location.contains("://"), let scheme, scheme != "file" {
            throw CLIError("unsupported feed URL \"\(location.redactingUserinfo)\" (use a file path, an http or https URL, or a server: subsonic+https://USER@HOST)", exitCode: .usage)
        }
        let path = location.hasPrefix("file://") ? (URL(string: location)?.path ?? location) : location
        var loaded: LoadedFeed
        do {
            loaded = try FeedFile.load(absolutePath(path), shownAs: location)
        } catch {
            throw CLIError(error)
        }
        if loaded.wantsFileDetails {
            let lookup = scopedDetails ?? fileDetails.withLock { $0 }
            loaded.applyFileDetails(lookup(loaded.feed.items, cacheDirectory))
        }
        return loaded
    }

    /// A server's library read page by page: the count so far, on a terminal.
    private static func showProgress(_ songs: Int) {
        guard isatty(2) == 1 else { return }
        StandardStream.error("\rmediaplay: reading the library: \(songs) items…")
    }

    /// How a local feed's files' details are had as it loads (their title
    /// tags; a folder's album order and covers): one per item, with the
    /// cache folder if any. mediaplay-core
    /// probes what the index does not know (`useDetails`); mediaplay-cache,
    /// without FFmpeg, reads only what the index knows.
    package typealias DetailsLookup = @Sendable (_ items: [FeedItem], _ cacheDirectory: String?) -> [MediaDetails?]

    /// What the index knows, nothing probed: mediaplay-cache's lookup.
    package static let indexedDetails: DetailsLookup = { items, cacheDirectory in
        let folder = cacheDirectory.flatMap { try? CacheFolder.forViewing(directory: $0) }
        return KnownDetails(items, snapshot: try? folder?.snapshot()).details
    }

    private static let fileDetails = Mutex<DetailsLookup>(indexedDetails)

    /// Set once, as the program starts.
    package static func useDetails(_ lookup: @escaping DetailsLookup) {
        fileDetails.withLock { $0 = lookup }
    }

    /// The lookup of a command run inside another process (a test's
    /// in-process run of mediaplay-core's commands), over the process's own.
    @TaskLocal package static var scopedDetails: DetailsLookup?

    private static func loadRemote(_ location: String, cacheDirectory: String?, refresh: Bool) throws(CLIError) -> LoadedFeed {
        // How the feed is named in messages and as a list's source: without a password.
        let shown = location.redactingUserinfo
        guard let url = URL(string: location), url.host?.isEmpty == false else {
            throw CLIError("feed URL \"\(shown)\" is not a valid URL", exitCode: .usage)
        }
        let cache = cacheDirectory.flatMap { try? MediaCache(directory: $0) }
        let kept = refresh ? nil : cache?.keptFeed(for: url)
        let response: HTTPResponse
        do {
            response = try HTTPGet.fetch(url, maximumBytes: maximumFeedBytes, etag: kept?.etag, lastModified: kept?.lastModified)
        } catch {
            switch error.kind {
            case let .http(status) where status == 404 || status == 410:
                throw CLIError("feed not found: \(error.message) (check the URL)", exitCode: .noInput)
            case .tooLarge:
                throw CLIError("feed \(shown) is larger than \(maximumFeedBytes >> 20) MiB; is it really a feed?", exitCode: .dataError)
            default:
                // Unreachable, or the server failing: the last good copy, said so.
                if let kept, let offline = try? FeedFile.decode(kept.body, origin: .remote(url), name: shown) {
                    let host = url.host ?? shown
                    var loaded = offline
                    loaded.offlineNotice = "offline: showing the feed as of \(Self.localTime(kept.fetched)) (could not reach \(host): \(error.message))"
                    return loaded
                }
                throw CLIError("cannot fetch feed \(shown): \(error.message) (check the network, then retry)", exitCode: .unavailable)
            }
        }
        if response.notModified, let kept {
            cache?.confirmKeptFeed(for: url, at: Date())
            do {
                return try FeedFile.decode(kept.body, origin: .remote(url), name: shown)
            } catch {
                throw CLIError(error)
            }
        }
        let loaded: LoadedFeed
        do {
            loaded = try FeedFile.decode(response.body, origin: .remote(url), name: shown)
        } catch {
            throw CLIError(error)
        }
        // Only a feed that reads is kept: a broken one never replaces the last good copy.
        try? cache?.keep(KeptFeed(
            url: url.absoluteString, body: response.body, etag: response.etag, lastModified: response.lastModified,
            fetched: Date().timeIntervalSince1970
        ))
        return loaded
    }

    /// `2026-11-22 14:05` in the local time zone.
    package static func localTime(_ seconds: Double) -> String { LocalTime.text(seconds) }
}

/// The background player's view of its feed file: when the file (or, for a
/// remote feed, its kept copy, which `list` and browse refresh) changed
/// since it was last read, `changedFeed()` reads it again, so a number a
/// client sends means what `list` shows now. A feed that no longer reads
/// leaves the last good one in place.
package final class FeedFollower: Sendable {
    private let location: String
    private let cacheDirectory: String?
    /// Where a remote feed's kept copy is (opened once).
    private let cache: MediaCache?
    private let last: Mutex<String?>

    package init(location: String, cacheDirectory: String?, cache: MediaCache?) {
        self.location = location
        self.cacheDirectory = cacheDirectory
        self.cache = cache
        last = Mutex(nil)
        _ = changedFeed(stampOnly: true)
    }

    /// Blocking (a stat, and a read when it changed): run off the cooperative pool.
    package func changedFeed() -> Feed? { changedFeed(stampOnly: false) }

    private func changedFeed(stampOnly: Bool) -> Feed? {
        guard let stamp = currentStamp() else { return nil }
        let changed = last.withLock { last in
            defer { last = stamp }
            return last != stamp
        }
        guard changed, !stampOnly else { return nil }
        if ServerFeeds.isServer(location) {
            return try? FeedLoading.load(location, cacheDirectory: cacheDirectory, announce: false).feed
        }
        if let url = remoteURL {
            guard let kept = cache?.keptFeed(for: url) else { return nil }
            return try? FeedDecoder.decode(kept.body, origin: .remote(url))
        }
        return try? FeedLoading.load(location, cacheDirectory: cacheDirectory, announce: false).feed
    }

    private var remoteURL: URL? {
        let scheme = location.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() }
        guard location.contains("://"), scheme == "http" || scheme == "https" else { return nil }
        return URL(string: location)
    }

    private func currentStamp() -> String? {
        if let key = ServerFeeds.keptKey(location) { return cache?.keptFeedStamp(for: key) }
        if let url = remoteURL {
            return cache?.keptFeedStamp(for: url)
        }
        let path = absolutePath(location.hasPrefix("file://") ? (URL(string: location)?.path ?? location) : location)
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev) \(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
}
