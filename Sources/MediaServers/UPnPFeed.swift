import Foundation
import MediaCache
import MediaCacheFolder
import MediaFeed
import MediaListing
import MediaModel
import MediaplayCommon

/// A UPnP server's tree as a feed, read as a folder tree reads: depth
/// first, containers in the server's order, each file once (where it is
/// first found: a server that shows one song under Artist, Album and Genre
/// lists it once). Kept in the cache like a Subsonic library.
enum UPnPFeed {
    struct Entry: Sendable {
        var id: String
        var title: String
        var kind: MediaKind
        var url: URL
        var artist: String?
        var album: String?
        var track: Int?
        var duration: Double?
        var art: URL?
    }

    /// Bounds of a tree: containers visited, depth, items.
    static let maximumContainers = 20_000
    static let maximumDepth = 24
    /// Browse requests in all (a whole tree of the largest size takes
    /// fewer): a server that pages on forever is read in part.
    static let maximumRequests = 25_000

    static func load(_ location: String, cacheDirectory: String?, refresh: Bool, progress: (Int) -> Void, itemsAsRead: ServerFeeds.ItemsAsRead? = nil) throws(CLIError) -> LoadedFeed {
        let server = try UPnPServer(location: location)
        let identity = UPnPServer.identity(of: location)
        // The folder the list holds open (its index opened once, and no transfer engine: nothing is downloaded here).
        let cache = cacheDirectory.flatMap { try? CacheFolder.shared(directory: $0) }
        let keyURL = URL(string: identity)
        let keptCopy = keyURL.flatMap { cache?.keptFeed(for: $0) }
        let kept = keptCopy.flatMap { decode($0.body) }
        let now = SystemClock.shared.wallTime.timeIntervalSince1970
        if !refresh, let kept, let keptCopy, now - keptCopy.fetched < ServerFeeds.freshFor, now >= keptCopy.fetched {
            return Collected(kept.name, kept.entries, keepingRows: false).loaded(identity: identity)
        }
        do {
            let (collected, note) = try read(server, progress: progress, itemsAsRead: itemsAsRead)
            if let keyURL {
                cache?.keepBeside(KeptFeed(url: keyURL.absoluteString, body: collected.kept?.bytes ?? [], etag: nil, lastModified: nil, fetched: now))
            }
            var result = collected.loaded(identity: identity)
            if let note { result.feed.notes.append(note) }
            return result
        } catch {
            guard error.exitCode == .unavailable, let kept, let keptCopy else { throw error }
            var result = Collected(kept.name, kept.entries, keepingRows: false).loaded(identity: identity)
            result.offlineNotice = "offline: showing the server's items as of \(ServerFeeds.localTime(keptCopy.fetched)) (\(error.message))"
            return result
        }
    }

    /// The server's items (collected as each page is read), and a note
    /// when items were left out for being on another host.
    static func read(_ server: UPnPServer, progress: (Int) -> Void, itemsAsRead: ServerFeeds.ItemsAsRead? = nil) throws(CLIError) -> (Collected, String?) {
        let deadline = LoadDeadline()
        let device = try server.device(timeout: deadline.left(for: server.host))
        guard let controlURL = device.controlURL, let serviceType = device.serviceType else {
            throw CLIError("\(device.name) (\(server.host)) is no media server: its description has no ContentDirectory service", exitCode: .unavailable)
        }
        guard server.allows(controlURL) else {
            throw CLIError("the UPnP server \(server.host) names a control URL on another host; refused", exitCode: .unavailable)
        }
        let directory = ContentDirectory(server: server, controlURL: controlURL, serviceType: serviceType)
        var collected = Collected(device.name)
        // By their text (URLs equal as their text is; a String hashes far faster).
        var seenURLs: Set<String> = []
        var elsewhere = 0
        var otherHost: String?
        var visited: Set<String> = []
        // Containers found, read or still to read: at most maximumContainers.
        var found: Set<String> = [server.root]
        var requests = 0
        var cut = false
        // Items handed to `itemsAsRead` so far.
        var heard = 0
        // Depth first, in the server's order: a stack of containers to read.
        var pending: [(id: String, depth: Int)] = [(server.root, 0)]
        while !cut, let (container, depth) = pending.popLast(), visited.count < maximumContainers, collected.count < FeedDecoder.maximumItems {
            guard visited.insert(container).inserted else { continue }
            var children: [(id: String, depth: Int)] = []
            // A container lists each of its entries once: a page with none
            // new is a server repeating itself (ignoring the offset,
            // claiming more than it has), and ends the container.
            var listedHere: Set<String> = []
            var start = 0
            // The container's next pages, asked for while this one is read:
            // the server makes them meanwhile. Once a page has told the
            // total and come whole, the two after it are asked for as it
            // comes, before it is read: the server has the next request
            // while this page's bytes still travel (one ahead left it idle
            // for each page's transfer and hand-over, a third of its time).
            var aheads: [PageAhead] = []
            defer { for page in aheads { page.abandon() } }
            var told: (returned: Int, total: Int)?
            func askAhead(from next: Int) throws(CLIError) {
                guard requests < maximumRequests else { return }
                requests += 1
                let timeout = try deadline.left(for: server.host)
                let cancellation = TransferCancellation()
                aheads.append(PageAhead(start: next, cancellation: cancellation) { () throws(CLIError) in
                    try directory.fetch(container, from: next, timeout: timeout, cancellation: cancellation)
                })
            }
            while collected.count < FeedDecoder.maximumItems {
                let body: [UInt8]
                if let pending = aheads.first, pending.start == start {
                    aheads.removeFirst()
                    body = try pending.wait()
                } else {
                    for page in aheads { page.abandon() }
                    aheads.removeAll()
                    guard requests < maximumRequests else {
                        cut = true
                        break
                    }
                    requests += 1
                    body = try directory.fetch(container, from: start, timeout: deadline.left(for: server.host))
                }
                if let told, told.returned == ContentDirectory.pageSize {
                    for next in [start + told.returned, start + 2 * told.returned] where next < told.total && next > (aheads.last?.start ?? start) {
                        try askAhead(from: next)
                    }
                }
                let envelope = try directory.envelope(body, of: container)
                if start == 0, let total = envelope.total, total > ContentDirectory.pageSize {
                    // Room for a large container's entries at once, not grown
                    // page by page (bounded: a server may claim any total).
                    let room = min(total, FeedDecoder.maximumItems)
                    listedHere.reserveCapacity(min(room, 20_000))
                    if seenURLs.capacity < seenURLs.count + room { seenURLs.reserveCapacity(max(seenURLs.count + room, 2 * seenURLs.capacity)) }
                    collected.reserve(room)
                }
                if let returned = envelope.returned, returned > 0, let total = envelope.total, start + returned < total {
                    told = (returned, total)
                    if aheads.isEmpty { try askAhead(from: start + returned) }
                } else {
                    told = nil
                }
                let page = (entries: try envelope.entries(), returned: envelope.returned, total: envelope.total)
                var fresh = 0
                for entry in page.entries where listedHere.insert(entry.id).inserted {
                    fresh += 1
                    if entry.isContainer {
                        if depth + 1 < maximumDepth, found.count < maximumContainers, found.insert(entry.id).inserted {
                            children.append((entry.id, depth + 1))
                        }
                        continue
                    }
                    guard let made = self.entry(entry, server: server) else {
                        if let url = entry.url.flatMap(URL.init(string:)), let host = url.host, !server.allows(url) {
                            elsewhere += 1
                            otherHost = otherHost ?? host
                        }
                        continue
                    }
                    guard seenURLs.insert(made.url.absoluteString).inserted else { continue }
                    collected.add(made)
                }
                // The page's URLs may be requested from now on (without following redirects).
                collected.allowRequests()
                progress(collected.count)
                if let itemsAsRead { collected.hand(from: heard, to: itemsAsRead) }
                heard = collected.count
                let returned = page.returned ?? page.entries.count
                start += returned
                if returned == 0 || page.entries.isEmpty || fresh == 0 { break }
                if let total = page.total, total > 0, start >= total { break }
            }
            pending += children.reversed()
        }
        var note = otherHost.map { host in
            "\(elsewhere) item\(elsewhere == 1 ? " was" : "s were") left out: their media is on \(ServerText.clean(host)), not \(server.host) (name the server by the address it gives its files)"
        }
        if cut {
            let read = "the server's tree was read in part: it took \(maximumRequests) Browse requests without an end"
            note = note.map { $0 + "; " + read } ?? read
        }
        return (collected, note)
    }

    /// An item with media the feed may play: an http(s) URL on the server's
    /// own host; anything else is left out.
    static func entry(_ didl: DIDLEntry, server: UPnPServer) -> Entry? {
        guard let text = didl.url, let url = URL(string: text), server.allows(url) else { return nil }
        // upnp:class (object.item.audioItem.musicTrack…), else the MIME type.
        let kind: MediaKind
        let type = didl.upnpClass, mime = didl.mime ?? ""
        if type.hasLowercasePrefixIgnoringASCIICase("object.item.imageitem") || mime.hasLowercasePrefixIgnoringASCIICase("image/") {
            kind = .image
        } else if type.hasLowercasePrefixIgnoringASCIICase("object.item.videoitem") || mime.hasLowercasePrefixIgnoringASCIICase("video/") {
            kind = .video
        } else if type.hasLowercasePrefixIgnoringASCIICase("object.item.audioitem") || mime.hasLowercasePrefixIgnoringASCIICase("audio/") {
            kind = .audio
        } else {
            return nil
        }
        let art = didl.albumArt.flatMap { URL(string: $0) }.flatMap { server.allows($0) ? $0 : nil }
        return Entry(
            id: didl.id, title: didl.title, kind: kind, url: url, artist: didl.artist, album: didl.album, track: didl.track,
            duration: didl.duration, art: art
        )
    }

    /// A server's items as they are read: each entry made at once into its
    /// feed item, its details and its kept row (a page's while the next is
    /// on its way, not all of them once the last has come).
    struct Collected {
        private(set) var items: [FeedItem] = []
        private(set) var details: [MediaDetails?] = []
        /// The kept copy's rows; nil when the items come from a kept copy
        /// (nothing to write again).
        private(set) var kept: KeptRows.Writer?
        let name: String
        /// URLs not yet allowed for requests.
        private var made: [URL] = []

        init(_ name: String, keepingRows: Bool = true) {
            self.name = name
            kept = keepingRows ? KeptRows.Writer(header: UPnPFeed.header, about: ServerText.clean(name)) : nil
        }

        /// Entries collected at once (a kept copy read back).
        init(_ name: String, _ entries: [Entry], keepingRows: Bool) {
            self.init(name, keepingRows: keepingRows)
            items.reserveCapacity(entries.count)
            details.reserveCapacity(entries.count)
            for entry in entries { add(entry) }
        }

        var count: Int { items.count }

        /// Room for `count` more entries (a container's total, as its first
        /// page tells it): the arrays are not grown, copied and faulted in
        /// again and again as pages come.
        mutating func reserve(_ count: Int) {
            let room = min(count, FeedDecoder.maximumItems - items.count)
            // At least doubled when grown: a tree of many containers is not copied once per container.
            guard room > 0, items.capacity < items.count + room else { return }
            let capacity = max(items.count + room, 2 * items.capacity)
            items.reserveCapacity(capacity)
            details.reserveCapacity(capacity)
            kept?.reserve(rows: capacity - items.count)
        }

        mutating func add(_ entry: Entry) {
            let url = entry.url
            let id = entry.id.isAllNumbers ? "upnp-" + entry.id : entry.id
            let art = entry.kind == .image ? url : entry.art
            made.append(url)
            if let art, entry.kind != .image { made.append(art) }
            items.append(FeedItem(
                position: items.count + 1, id: id, title: entry.title, kind: entry.kind, source: .remote(url),
                thumbnail: art.map { .remote($0) }, duration: entry.duration
            ))
            details.append(MediaDetails(duration: entry.duration, title: entry.title, artist: entry.artist, album: entry.album, track: entry.track))
            guard kept != nil else { return }
            kept?.field(entry.id)
            kept?.field(entry.title)
            kept?.field(entry.kind.name)
            kept?.field(url.absoluteString)
            kept?.field(entry.artist ?? "")
            kept?.field(entry.album ?? "")
            kept?.field(entry.track.map(String.init) ?? "")
            kept?.field(entry.duration.map { String($0) } ?? "")
            kept?.field(entry.art?.absoluteString ?? "")
            kept?.endRow()
        }

        /// The items from `start` on, with their details.
        func hand(from start: Int, to itemsAsRead: ServerFeeds.ItemsAsRead) {
            guard start < items.count else { return }
            itemsAsRead(items[start...], details[start...])
        }

        /// A server's URLs: fetched without following redirects.
        mutating func allowRequests() {
            RequestSigning.allow(made)
            made.removeAll(keepingCapacity: true)
        }

        /// The feed, its URLs allowed for requests.
        consuming func loaded(identity: String) -> LoadedFeed {
            allowRequests()
            var loaded = LoadedFeed(feed: Feed(title: name, items: items), source: identity, identity: identity)
            loaded.details = details
            return loaded
        }
    }

    // MARK: - The kept copy

    static let header = "mediaplay-upnp-items 1"

    static func encode(_ name: String, _ entries: [Entry]) -> [UInt8] {
        Collected(name, entries, keepingRows: true).kept?.bytes ?? []
    }

    static func decode(_ bytes: [UInt8]) -> (name: String, entries: [Entry])? {
        guard let (name, rows) = KeptRows.decode(bytes, header: header, width: 9) else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(rows.count)
        for fields in rows {
            guard let kind = fields[2].flatMap(MediaKind.init(name:)) else { return nil }
            // A row whose URL no longer reads (written by a Foundation that took it) is left out.
            guard let url = fields[3].flatMap(URL.init(string:)) else { continue }
            entries.append(Entry(
                id: fields[0] ?? "", title: fields[1] ?? "", kind: kind, url: url, artist: fields[4], album: fields[5],
                track: fields[6].flatMap { whole($0, in: 0...99_999) }, duration: CheckedNumber.duration(fields[7].flatMap(Double.init)),
                art: fields[8].flatMap(URL.init(string:))
            ))
        }
        return (name, entries)
    }
}

/// A Browse page fetched on a thread of its own (a blocking transfer,
/// bounded by the load's deadline) while the page before it is read.
final class PageAhead: @unchecked Sendable {
    let start: Int
    private let cancellation: TransferCancellation
    private let done = DispatchSemaphore(value: 0)
    // Written once by the thread before `done` is signalled; read after.
    private var result: Result<[UInt8], CLIError>?

    init(start: Int, cancellation: TransferCancellation, _ fetch: @escaping @Sendable () throws(CLIError) -> [UInt8]) {
        self.start = start
        self.cancellation = cancellation
        let thread = Thread { [self] in
            do throws(CLIError) {
                result = .success(try fetch())
            } catch {
                result = .failure(error)
            }
            done.signal()
        }
        thread.name = "mediaplay.upnp-page"
        thread.start()
    }

    /// The page, once it has come (or the one line why not).
    func wait() throws(CLIError) -> [UInt8] {
        done.wait()
        done.signal()
        return try result!.get()
    }

    /// Not needed after all (the container ended early, or the read
    /// failed): called off, and waited for, so no transfer outlives the
    /// load (a silent server's page ends within a second, not at the deadline).
    func abandon() {
        cancellation.cancel()
        done.wait()
        done.signal()
    }
}
