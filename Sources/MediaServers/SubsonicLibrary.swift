import Foundation
import MediaCache
import MediaFeed
import MediaListing
import MediaModel
import MediaplayCommon

/// One song of a Subsonic library, as the server describes it.
public struct SubsonicSong: Sendable, Equatable {
    public var id: String
    public var title: String
    public var artist: String?
    public var album: String?
    public var track: Int?
    public var disc: Int?
    public var duration: Double?
    public var coverArt: String?
    public var isVideo = false

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

/// A Subsonic server's songs, read page by page, ordered by artist, album,
/// disc and track, and kept in the cache (`encoded`) so `list` works
/// offline and the next read costs no request while it is fresh.
public struct SubsonicLibrary: Sendable {
    public var auth: SubsonicAuth
    public var version: String
    public var songs: [SubsonicSong]

    /// Songs per request (search3's `songCount`, getAlbumList2's `size`:
    /// 500 is the largest servers commonly allow).
    static let pageSize = 500
    /// A library this large is a server's garbage, not music.
    static let maximumSongs = FeedDecoder.maximumItems

    public init(auth: SubsonicAuth, version: String, songs: [SubsonicSong]) {
        self.auth = auth
        self.version = version
        self.songs = songs
    }

    /// Reads every song: `search3` with an empty query, page by page (one
    /// request per 500 songs; Supysonic, Navidrome, gonic and Airsonic
    /// answer it); a server that answers it with nothing is read by
    /// albums instead (`getAlbumList2` pages, then `getAlbum` for each).
    /// `progress` hears the count so far.
    static func read(_ client: SubsonicClient, within deadline: LoadDeadline, progress: (Int) -> Void = { _ in }) throws(CLIError) -> SubsonicLibrary {
        var songs: [SubsonicSong] = []
        var seen: Set<String> = []
        var offset = 0
        while songs.count < maximumSongs {
            let body = try client.call("search3", [
                ("query", ""), ("artistCount", "0"), ("albumCount", "0"), ("songCount", String(pageSize)), ("songOffset", String(offset)),
            ], within: deadline)
            let page = Self.songs(in: body["searchResult3"]?.value["song"]?.value)
            let fresh = page.filter { seen.insert($0.id).inserted }
            // An empty page ends it; so does a server that ignores the offset.
            if fresh.isEmpty { break }
            songs += fresh
            offset += page.count
            progress(songs.count)
        }
        if songs.isEmpty { songs = try readByAlbums(client, within: deadline, progress: progress) }
        return SubsonicLibrary(auth: client.auth, version: client.version, songs: ordered(songs))
    }

    static func readByAlbums(_ client: SubsonicClient, within deadline: LoadDeadline, progress: (Int) -> Void) throws(CLIError) -> [SubsonicSong] {
        var albums: [String] = []
        var seenAlbums: Set<String> = []
        var offset = 0
        while albums.count < maximumSongs {
            let body = try client.call("getAlbumList2", [("type", "alphabeticalByArtist"), ("size", String(pageSize)), ("offset", String(offset))], within: deadline)
            guard case let .array(entries)? = body["albumList2"]?.value["album"]?.value else { break }
            let fresh = entries.compactMap { SubsonicClient.string($0.value["id"]) }.filter { seenAlbums.insert($0).inserted }
            if fresh.isEmpty { break }
            albums += fresh
            offset += entries.count
        }
        var songs: [SubsonicSong] = []
        var seen: Set<String> = []
        for album in albums where songs.count < maximumSongs {
            let body = try client.call("getAlbum", [("id", album)], within: deadline)
            songs += Self.songs(in: body["album"]?.value["song"]?.value).filter { seen.insert($0.id).inserted }
            progress(songs.count)
        }
        return songs
    }

    /// The songs of a JSON answer's `song` (an array, or one object).
    static func songs(in value: JSONValue?) -> [SubsonicSong] {
        let records: [JSONValue]
        switch value {
        case let .array(entries)?: records = entries.map(\.value)
        case let .object(members)?: records = [.object(members)]
        default: return []
        }
        return records.compactMap(song)
    }

    static func song(_ record: JSONValue) -> SubsonicSong? {
        guard let id = SubsonicClient.string(record["id"]).map(ServerText.clean), !id.isEmpty, id.utf8.count <= 200 else { return nil }
        let title = SubsonicClient.string(record["title"]).map(ServerText.clean).flatMap { $0.isEmpty ? nil : $0 } ?? id
        var song = SubsonicSong(id: id, title: title)
        song.artist = SubsonicClient.string(record["artist"]).map(ServerText.clean).flatMap { $0.isEmpty ? nil : $0 }
        song.album = SubsonicClient.string(record["album"]).map(ServerText.clean).flatMap { $0.isEmpty ? nil : $0 }
        song.track = SubsonicClient.string(record["track"]).flatMap { whole($0, in: 0...99_999) }
        song.disc = SubsonicClient.string(record["discNumber"]).flatMap { whole($0, in: 0...9_999) }
        song.duration = CheckedNumber.duration(SubsonicClient.double(record["duration"]))
        song.coverArt = SubsonicClient.string(record["coverArt"]).map(ServerText.clean).flatMap { $0.isEmpty || $0.utf8.count > 200 ? nil : $0 }
        if case .bool(true)? = record["isVideo"]?.value { song.isVideo = true }
        return song
    }

    /// By artist, album, disc, track, then title (case ignored), as a
    /// folder's albums read; computed keys once, so 10,000 songs sort fast.
    static func ordered(_ songs: [SubsonicSong]) -> [SubsonicSong] {
        let keys = songs.map { song in
            (song.artist?.lowercased() ?? "\u{10FFFF}", song.album?.lowercased() ?? "\u{10FFFF}", song.disc ?? 1, song.track ?? Int.max, song.title.lowercased())
        }
        return songs.indices.sorted { a, b in
            let x = keys[a], y = keys[b]
            if x.0 != y.0 { return x.0 < y.0 }
            if x.1 != y.1 { return x.1 < y.1 }
            if x.2 != y.2 { return x.2 < y.2 }
            if x.3 != y.3 { return x.3 < y.3 }
            if x.4 != y.4 { return x.4 < y.4 }
            return a < b
        }.map { songs[$0] }
    }

    // MARK: - The kept copy

    static let header = "mediaplay-subsonic-library 1"

    /// One line a song (`KeptRows`).
    public var encoded: [UInt8] {
        KeptRows.encode(header: Self.header, about: auth.rawValue + "\t" + version, rows: songs.map { song in
            [
                song.id, song.title, song.artist ?? "", song.album ?? "", song.track.map(String.init) ?? "", song.disc.map(String.init) ?? "",
                song.duration.map { String($0) } ?? "", song.coverArt ?? "", song.isVideo ? "1" : "",
            ]
        })
    }

    /// The kept copy read back; nil when it is not one.
    public init?(encoded bytes: [UInt8]) {
        guard let (about, rows) = KeptRows.decode(bytes, header: Self.header, width: 9) else { return nil }
        let parts = about.split(separator: "\t", omittingEmptySubsequences: false)
        guard parts.count == 2, let auth = SubsonicAuth(rawValue: String(parts[0])) else { return nil }
        self.auth = auth
        version = String(parts[1])
        songs = rows.map { fields in
            var song = SubsonicSong(id: fields[0] ?? "", title: fields[1] ?? "")
            song.artist = fields[2]
            song.album = fields[3]
            song.track = fields[4].flatMap { whole($0, in: 0...99_999) }
            song.disc = fields[5].flatMap { whole($0, in: 0...9_999) }
            song.duration = CheckedNumber.duration(fields[6].flatMap(Double.init))
            song.coverArt = fields[7]
            song.isVideo = fields[8] == "1"
            return song
        }
    }

    // MARK: - As a feed

    /// The songs as items, with the details `list` shows (title, artist,
    /// album, track, duration): their media is `stream` (the original
    /// file, `format=raw`), their picture `getCoverArt`; no URL carries
    /// the login.
    public func loaded(server: SubsonicServer, shownAs shown: String) -> LoadedFeed {
        // A large library in two halves side by side (two cores): its URLs,
        // parsed, were most of listing a kept library.
        let songs = songs
        let made = InHalves.map(songs.count) { index in Self.item(songs[index], at: index + 1, server: server) }
        // These URLs, and no others, carry the login on the wire.
        var urls: [URL] = []
        urls.reserveCapacity(made.count * 2)
        for (item, _) in made {
            if case let .remote(url)? = item.source { urls.append(url) }
            if case let .remote(url)? = item.thumbnail { urls.append(url) }
        }
        RequestSigning.allow(urls)
        var loaded = LoadedFeed(feed: Feed(title: "\(server.user)@\(server.host)", items: made.map(\.item)), source: shown, identity: server.identity)
        loaded.details = made.map(\.details)
        return loaded
    }

    /// A song as the item at `position`, with its details.
    private static func item(_ song: SubsonicSong, at position: Int, server: SubsonicServer) -> (item: FeedItem, details: MediaDetails?) {
        let media = server.url("stream", [("id", song.id), ("format", "raw")])
        let cover = song.coverArt.map { server.url("getCoverArt", [("id", $0), ("size", "600")]) }
        // An id of digits alone would be read as an item's number.
        let id = song.id.isAllNumbers ? "song-" + song.id : song.id
        let item = FeedItem(
            position: position, id: id, title: song.title, kind: song.isVideo ? .video : .audio, source: .remote(media),
            thumbnail: cover.map { .remote($0) }, duration: song.duration
        )
        let details = MediaDetails(duration: song.duration, title: song.title, artist: song.artist, album: song.album, track: song.track, disc: song.disc)
        return (item, details)
    }
}

