import Foundation
import MediaCache
import MediaCacheFolder
import MediaFeed
import MediaInterfaces
import MediaListing
import MediaModel
import MediaplayCommon
import MediaTerminal
import Synchronization

/// Media servers as feeds: a Subsonic server's library
/// (`subsonic+http(s)://…`) and a DLNA/UPnP server's ContentDirectory
/// (`upnp+http://…/rootDesc.xml`). Each is one more maker of items: they
/// load into a `LoadedFeed` like a file does, kept in the cache for offline
/// use; their media is fetched once into the cache like any URL.
public enum ServerFeeds {
    /// Whether `location` names a media server rather than a file or a feed's URL.
    public static func isServer(_ location: String) -> Bool {
        SubsonicServer.isLocation(location) || UPnPServer.isLocation(location)
    }

    /// A run of a feed's items as its server's pages are read (in the
    /// feed's final order), with their details.
    public typealias ItemsAsRead = (ArraySlice<FeedItem>, ArraySlice<MediaDetails?>) -> Void

    /// The feed's name between runs (`LoadedFeed.identity`) when `location`
    /// is a server whose items come in their final order as its pages are
    /// read (a UPnP tree's, depth first; not a Subsonic library, ordered by
    /// artist and album once whole); nil for any other location.
    public static func readInOrder(_ location: String) -> String? {
        UPnPServer.isLocation(location) ? UPnPServer.identity(of: location) : nil
    }

    /// How long a kept library serves without asking the server again
    /// (`list --refresh` asks at once).
    public static let freshFor: Double = 3600

    /// The server's library (or tree), read or kept. `refresh`: read from
    /// the server whatever is kept. `progress` hears the songs counted so
    /// far on a long read.
    /// `itemsAsRead` hears a UPnP tree's items as each page is read (never
    /// those of a kept copy).
    public static func load(_ location: String, cacheDirectory: String?, refresh: Bool, progress: @escaping (Int) -> Void = { _ in }, itemsAsRead: ItemsAsRead? = nil) throws(CLIError) -> LoadedFeed {
        if UPnPServer.isLocation(location) {
            return try UPnPFeed.load(location, cacheDirectory: cacheDirectory, refresh: refresh, progress: progress, itemsAsRead: itemsAsRead)
        }
        let server = try SubsonicServer(location: location, login: ConfiguredDefaults.values.logins[location])
        let shown = server.identity
        // The folder the list holds open (its index opened once, and no transfer engine: nothing is downloaded here).
        let cache = cacheDirectory.flatMap { try? CacheFolder.shared(directory: $0) }
        let keyURL = URL(string: server.identity)
        let keptCopy = keyURL.flatMap { cache?.keptFeed(for: $0) }
        let kept = keptCopy.flatMap { SubsonicLibrary(encoded: $0.body) }
        let now = SystemClock.shared.wallTime.timeIntervalSince1970
        if !refresh, let kept, let keptCopy, now - keptCopy.fetched < freshFor, now >= keptCopy.fetched {
            ServerPlays.shared.add(SubsonicClient(server: server, auth: kept.auth, version: kept.version))
            return kept.loaded(server: server, shownAs: shown)
        }
        do {
            let deadline = LoadDeadline()
            let client = try SubsonicClient.connect(server, within: deadline)
            let library = try SubsonicLibrary.read(client, within: deadline, progress: progress)
            if let keyURL {
                cache?.keepBeside(KeptFeed(url: keyURL.absoluteString, body: library.encoded, etag: nil, lastModified: nil, fetched: now))
            }
            ServerPlays.shared.add(client)
            return library.loaded(server: server, shownAs: shown)
        } catch {
            // Down or unreachable: the library as last read, said so. A
            // refused login is never hidden behind the kept copy.
            guard error.exitCode == .unavailable, let kept, let keptCopy else { throw error }
            ServerPlays.shared.add(SubsonicClient(server: server, auth: kept.auth, version: kept.version))
            var loaded = kept.loaded(server: server, shownAs: shown)
            loaded.offlineNotice = "offline: showing the library as of \(localTime(keptCopy.fetched)) (\(error.message))"
            return loaded
        }
    }

    /// Where a server feed's kept copy is (its changes are what the
    /// background player follows); nil when `location` is none.
    public static func keptKey(_ location: String) -> URL? {
        if UPnPServer.isLocation(location) { return URL(string: UPnPServer.identity(of: location)) }
        guard SubsonicServer.isLocation(location),
              let server = try? SubsonicServer(location: location, login: ConfiguredDefaults.values.logins[location], needsPassword: false)
        else { return nil }
        return URL(string: server.identity)
    }

    /// `2026-11-22 14:05` in the local time zone.
    static func localTime(_ seconds: Double) -> String { LocalTime.text(seconds) }

    /// Why a song's media came back as a document rather than the song (a
    /// Subsonic server states its errors in one, as HTTP 200): the server's
    /// answer to a `ping` in words (a changed password: exit 77); nil when
    /// `url` is no server's song or the server answers the ping well.
    /// Blocking: one call, within the client's timeout.
    public static func failure(ofSong url: URL) -> CLIError? {
        guard let (client, _) = ServerPlays.shared.song(at: url) else { return nil }
        do {
            _ = try client.call("ping")
            return nil
        } catch {
            return error
        }
    }

    /// `mark N starred|unstarred`: the server's star on each of the items
    /// (Subsonic `star`/`unstar`); an item of another feed is an error.
    public static func star(_ items: [FeedItem], on: Bool) throws(CLIError) {
        for item in items {
            guard case let .remote(url)? = item.source, let (client, id) = ServerPlays.shared.song(at: url) else {
                throw CLIError("item \(item.position) is not a song of a Subsonic server: only those take a star", exitCode: .usage)
            }
            try client.perform(on ? "star" : "unstar", [("id", id)])
        }
    }
}

/// Tells the Subsonic servers whose songs play that a song began
/// (`scrobble`, submission=false: "now playing") and that it was played to
/// its end (`scrobble`, submission=true), on a queue of its own; a server
/// that does not answer costs playback nothing.
public final class ServerPlays: PlayReporting {
    public static let shared = ServerPlays()

    private let clients = Mutex<[String: SubsonicClient]>([:])
    private let queue = DispatchQueue(label: "mediaplay.server-plays")

    func add(_ client: SubsonicClient) {
        clients.withLock { $0[client.server.restPrefix] = client }
    }

    /// The server and song id of a song's media URL (`…/rest/stream.view?id=…`).
    func song(at url: URL) -> (SubsonicClient, String)? {
        let text = url.absoluteString
        guard let client = clients.withLock({ list in list.first { text.hasPrefix($0.key) }?.value }),
              url.lastPathComponent == "stream.view",
              let id = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "id" })?.value
        else { return nil }
        return (client, id)
    }

    public func started(_ url: URL) { report(url, submission: false) }

    public func ended(_ url: URL) { report(url, submission: true) }

    public func flush() { queue.sync {} }

    public func refusal(of url: URL) -> String? {
        guard let failure = ServerFeeds.failure(ofSong: url), failure.exitCode == .noPermission else { return nil }
        return failure.message
    }

    private func report(_ url: URL, submission: Bool) {
        guard let (client, id) = song(at: url) else { return }
        queue.async {
            try? client.perform("scrobble", [("id", id), ("submission", submission ? "true" : "false")])
        }
    }
}
