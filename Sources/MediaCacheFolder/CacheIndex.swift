import Foundation
import GRDB
import GRDBSQLite
import CSQLite
import MediaFeed
import MediaModel

/// Probed details of a file, and the file's size and modification time when
/// probed: a file that changed is probed again.
public struct StoredDetails: Sendable, Equatable {
    public var details: MediaDetails
    public var fileSize: Int64
    public var fileTime: Double

    public init(details: MediaDetails, fileSize: Int64, fileTime: Double) {
        self.details = details
        self.fileSize = fileSize
        self.fileTime = fileTime
    }
}

/// One row of the cache index: what we know of a URL's entry.
public struct IndexRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "entry"

    public enum State: String, Codable, Sendable {
        /// Bytes are (or were) being fetched into the `.part` file.
        case partial
        /// The data file is complete and verified.
        case complete
        /// The last attempt failed; `error` says why. A `.part` file may remain.
        case failed
    }

    public var url: String
    /// File name in the entries folder: SHA-256 of the URL plus its extension.
    public var name: String
    /// The full size when known (Content-Length or Content-Range total).
    public var size: Int64?
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    public var state: State
    public var error: String?
    /// Seconds since 1970 of the last time the entry was used.
    public var lastAccess: Double
    public var updated: Double
    /// The byte ranges a partial file holds ("0-100,500-900", half-open),
    /// once a ranged transfer has written out of order; nil means the part
    /// file holds its bytes from 0 to its size.
    public var ranges: String?

    package init(url: String, name: String, state: State, lastAccess: Double, updated: Double) {
        self.url = url
        self.name = name
        self.state = state
        self.lastAccess = lastAccess
        self.updated = updated
    }
}

/// The last good copy of a remote feed, as the server sent it.
public struct KeptFeed: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "feed"

    public var url: String
    public var body: [UInt8]
    public var etag: String?
    public var lastModified: String?
    /// Seconds since 1970 when the server last gave or confirmed it.
    public var fetched: Double

    public init(url: String, body: [UInt8], etag: String?, lastModified: String?, fetched: Double) {
        self.url = url
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
        self.fetched = fetched
    }

    enum CodingKeys: String, CodingKey { case url, body, etag, lastModified, fetched }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        body = [UInt8](try container.decode(Data.self, forKey: .body))
        etag = try container.decodeIfPresent(String.self, forKey: .etag)
        lastModified = try container.decodeIfPresent(String.self, forKey: .lastModified)
        fetched = try container.decode(Double.self, forKey: .fetched)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(Data(body), forKey: .body)
        try container.encodeIfPresent(etag, forKey: .etag)
        try container.encodeIfPresent(lastModified, forKey: .lastModified)
        try container.encode(fetched, forKey: .fetched)
    }
}

/// The SQLite index of the cache, shared by every mediaplay process using the
/// same cache folder (WAL mode, so readers never wait for a writer).
///
/// The files are the truth about bytes: a data file exists only once verified.
/// The index adds what the files cannot say: validators for resuming and
/// revalidating, sizes, failures and last access.
package final class CacheIndex: Sendable {
    private let pool: DatabasePool
    /// The dates of records' updates and last uses.
    private let clock: any MediaClock

    package init(path: String, clock: any MediaClock = SystemClock.shared) throws {
        self.clock = clock
        // Switching a new database to WAL ignores SQLite's busy timeout, so two
        // processes creating the cache at once would fail: a lock file lets one
        // create and migrate while the other waits (milliseconds, once).
        let setupLock = try EntryLock(path: path + ".setup-lock")
        setupLock.lock()
        defer { setupLock.unlock() }
        var configuration = Configuration()
        // Other processes may hold the write lock briefly.
        configuration.busyMode = .timeout(10)
        configuration.label = "mediaplay.cache-index"
        // WAL with synchronous=NORMAL: commits stay atomic and consistent, and
        // skip an fsync each. The files are the truth about bytes, so a power
        // cut losing the last index update loses nothing that matters.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Closed, the log stays unmerged (a later commit merges it): a
            // command's exit waits for no checkpoint.
            _ = mp_sqlite_no_checkpoint_on_close(db.sqliteConnection)
            for suffix in ["", "-wal", "-shm"] { chmod(path + suffix, 0o600) }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        for suffix in ["", "-wal", "-shm"] { chmod(path + suffix, 0o600) }
        try Self.migrator.migrate(pool)
    }

    /// The index's schema, step by step.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.create(table: "entry") { table in
                    table.primaryKey("url", .text)
                    table.column("name", .text).notNull().unique()
                    table.column("size", .integer)
                    table.column("etag", .text)
                    table.column("lastModified", .text)
                    table.column("contentType", .text)
                    table.column("state", .text).notNull()
                    table.column("error", .text)
                    table.column("lastAccess", .double).notNull()
                    table.column("updated", .double).notNull()
                }
            }
            migrator.registerMigration("v2-ranges") { db in
                try db.alter(table: "entry") { table in table.add(column: "ranges", .text) }
            }
            migrator.registerMigration("v3-feeds") { db in
                // The last good copy of each remote feed, for offline use and
                // conditional requests (a 304 costs no download).
                try db.create(table: "feed") { table in
                    table.primaryKey("url", .text)
                    table.column("body", .blob).notNull()
                    table.column("etag", .text)
                    table.column("lastModified", .text)
                    table.column("fetched", .double).notNull()
                }
            }
            migrator.registerMigration("v4-media") { db in
                // What a probe found in an entry's (or a local item's) file,
                // valid while the file keeps its size and modification time.
                try db.create(table: "media") { table in
                    table.primaryKey("url", .text)
                    table.column("fileSize", .integer).notNull()
                    table.column("fileTime", .double).notNull()
                    table.column("duration", .double)
                    table.column("title", .text)
                    table.column("artist", .text)
                    table.column("album", .text)
                    table.column("codec", .text)
                    table.column("width", .integer)
                    table.column("height", .integer)
                    table.column("sampleRate", .integer)
                }
            }
            migrator.registerMigration("v5-tracks-chapters") { db in
                // Track and disc numbers order a folder's album; a cover in
                // the file is its thumbnail; its chapters as JSON
                // ([{"start": s, "title": t}]). Files probed before are
                // probed again, once, to learn them.
                try db.alter(table: "media") { table in
                    table.add(column: "track", .integer)
                    table.add(column: "disc", .integer)
                    table.add(column: "hasCover", .boolean).notNull().defaults(to: false)
                    table.add(column: "chapters", .text)
                }
                try db.execute(sql: "DELETE FROM media")
            }
            migrator.registerMigration("v6-loudness") { db in
                // The loudness measured in the file (JSON: integrated,
                // range, truePeak), "none" when it has no sound to measure,
                // NULL until measured. It goes with the row: a changed or
                // removed file forgets it.
                try db.alter(table: "media") { table in table.add(column: "loudness", .text) }
            }
            migrator.registerMigration("v7-media-tracks") { db in
                // The file's audio and subtitle tracks (JSON), NULL for a
                // row probed before: such a file is probed again, once, and
                // keeps what was measured (the same file, see `store`).
                try db.alter(table: "media") { table in table.add(column: "tracks", .text) }
            }
            migrator.registerMigration("v8-pages") { db in
                // What a web page resolved to through yt-dlp (JSON of a
                // `ResolvedPage`), so a second play asks yt-dlp nothing; the
                // media's URL, for naming its entry by the page's title.
                try db.create(table: "page") { table in
                    table.primaryKey("url", .text)
                    table.column("resolution", .text).notNull()
                    table.column("mediaURL", .text).notNull()
                    table.column("audioURL", .text)
                    table.column("title", .text)
                    table.column("resolved", .double).notNull()
                }
            }
        return migrator
    }

    /// Opens an index that exists, for reading only (list): no setup lock,
    /// no migration, and nothing written or synced, on open or on close
    /// (a writable open and close cost four fsyncs, bimodal on a slow disk).
    /// Throws when the index is not there, cannot be read or needs a
    /// migration: then a writable open does what is needed.
    package init(readingOnly path: String, clock: any MediaClock = SystemClock.shared) throws {
        self.clock = clock
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "mediaplay.cache-index"
        pool = try DatabasePool(path: path, configuration: configuration)
        guard try pool.read({ db in try Self.migrator.hasCompletedMigrations(db) }) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the index needs a migration")
        }
    }

    /// Whether the file at `path` is a cache index of any version (its
    /// migrations table and entry table), read without writing anything.
    package static func isCacheIndex(_ path: String) -> Bool {
        var configuration = Configuration()
        configuration.readonly = true
        guard EntryFile.size(path) != nil, let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return false }
        let found = try? queue.read { db in
            try db.tableExists("grdb_migrations") && db.tableExists("entry")
                && Set(db.columns(in: "entry").map(\.name)).isSuperset(of: ["url", "name", "state", "lastAccess"])
        }
        return found == true
    }

    /// Every probed file's details (one query, for a whole list).
    package func allDetails() -> [String: StoredDetails] {
        var rows: [DetailsRow] = []
        try? pool.read { db in
            let statement = try db.makeStatement(sql: "SELECT \(Self.detailColumns), url FROM media")
            rows = DetailsRow.all(of: statement)
        }
        // The JSON columns decoded all at once, one call per column: a
        // decoder call per row was most of listing a 500-file folder unchanged.
        let chapters: [[Chapter]?] = Self.decodeAll(rows.map(\.chapters))
        let tracks: [[MediaTrack]?] = Self.decodeAll(rows.map(\.tracks))
        let loudness: [Loudness?] = Self.decodeAll(rows.map(\.loudness))
        var result: [String: StoredDetails] = [:]
        result.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            guard let url = row.url else { continue }
            result[url] = row.details(chapters: chapters[index], tracks: tracks[index], loudness: loudness[index])
        }
        return result
    }

    /// Each text decoded as a `Value` (nil where absent or unreadable),
    /// each distinct text once: a folder's files mostly share theirs (one
    /// MP3 track, no chapters), and a decode per row was most of listing a
    /// 500-file folder unchanged.
    private static func decodeAll<Value: Decodable>(_ texts: [String?]) -> [Value?] {
        let decoder = JSONDecoder()
        var decoded: [String: Value?] = [:]
        return texts.map { text in
            guard let text else { return nil }
            if let known = decoded[text] { return known }
            let value = try? decoder.decode(Value.self, from: Data(text.utf8))
            decoded[text] = value
            return value
        }
    }

    /// One file's details (browse's detail view asks for one item).
    package func details(for url: String) -> StoredDetails? {
        guard let row = try? pool.read({ db -> DetailsRow? in
            let statement = try db.makeStatement(sql: "SELECT \(Self.detailColumns), url FROM media WHERE url = ?")
            try statement.setArguments([url])
            return DetailsRow.all(of: statement).first
        }) else { return nil }
        let decoder = JSONDecoder()
        func decoded<Value: Decodable>(_ text: String?) -> Value? { text.flatMap { try? decoder.decode(Value.self, from: Data($0.utf8)) } }
        return row.details(chapters: decoded(row.chapters), tracks: decoded(row.tracks), loudness: decoded(row.loudness))
    }

    /// The columns `DetailsRow` reads, in its order (then the url).
    private static let detailColumns = "duration, title, artist, album, codec, width, height, sampleRate, track, disc, hasCover, chapters, tracks, loudness, fileSize, fileTime"

    package func store(_ stored: StoredDetails, for url: String) throws {
        try store([(url, stored)])
    }

    /// Many files' details in one transaction (a folder's first list).
    package func store(_ all: [(url: String, stored: StoredDetails)]) throws {
        guard !all.isEmpty else { return }
        try pool.write { db in
            let statement = try db.makeStatement(sql: """
                INSERT INTO media (url, fileSize, fileTime, duration, title, artist, album, codec, width, height, sampleRate, track, disc, hasCover, chapters, loudness, tracks)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(url) DO UPDATE SET
                    fileSize = excluded.fileSize, fileTime = excluded.fileTime, duration = excluded.duration, title = excluded.title,
                    artist = excluded.artist, album = excluded.album, codec = excluded.codec, width = excluded.width, height = excluded.height,
                    sampleRate = excluded.sampleRate, track = excluded.track, disc = excluded.disc, hasCover = excluded.hasCover, chapters = excluded.chapters,
                    tracks = excluded.tracks,
                    -- A probe again of the same file keeps what was measured.
                    loudness = CASE
                        WHEN excluded.loudness IS NOT NULL THEN excluded.loudness
                        WHEN media.fileSize = excluded.fileSize AND media.fileTime = excluded.fileTime THEN media.loudness
                    END
                """)
            // Keys in order, so that files with the same tracks store the
            // same text (read back once for all of them: `decodeAll`).
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for (url, stored) in all {
                let d = stored.details
                try statement.execute(arguments: [
                    url, stored.fileSize, stored.fileTime, d.duration, d.title, d.artist, d.album, d.codec, d.width, d.height, d.sampleRate, d.track, d.disc, d.hasCover,
                    Self.chaptersJSON(d.chapters), Self.loudnessText(d), d.tracks.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) },
                ])
            }
        }
    }

    /// What the `loudness` column holds: NULL until measured.
    private static func loudnessText(_ details: MediaDetails) -> String? {
        guard details.measured else { return nil }
        guard let loudness = details.loudness, let data = try? JSONEncoder().encode(loudness) else { return "none" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func chaptersJSON(_ chapters: [Chapter]) -> String? {
        guard !chapters.isEmpty, let data = try? JSONEncoder().encode(chapters) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A page's kept resolution (JSON), if any.
    package func pageResolution(_ url: String) -> String? {
        try? pool.read { db in try String.fetchOne(db, sql: "SELECT resolution FROM page WHERE url = ?", arguments: [url]) }
    }

    package func keep(page url: String, resolution: String, mediaURL: String, audioURL: String?, title: String?, at time: Double) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO page (url, resolution, mediaURL, audioURL, title, resolved) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [url, resolution, mediaURL, audioURL, title, time]
            )
        }
    }

    /// The media URLs of every resolved page (the sound's too when apart), by the page's URL.
    package func pageMedia() -> [String: (media: URL, audio: URL?, title: String?)] {
        let rows = (try? pool.read { db in try Row.fetchAll(db, sql: "SELECT url, mediaURL, audioURL, title FROM page") }) ?? []
        var media: [String: (media: URL, audio: URL?, title: String?)] = [:]
        for row in rows {
            if let page = row["url"] as String?, let text = row["mediaURL"] as String?, let url = URL(string: text) {
                media[page] = (url, (row["audioURL"] as String?).flatMap { URL(string: $0) }, row["title"])
            }
        }
        return media
    }

    /// The titles of the pages whose media are these URLs.
    package func pageTitles() -> [String: String] {
        let rows = (try? pool.read { db in try Row.fetchAll(db, sql: "SELECT mediaURL, audioURL, title FROM page WHERE title IS NOT NULL") }) ?? []
        var titles: [String: String] = [:]
        for row in rows {
            guard let title = row["title"] as String? else { continue }
            if let url = row["mediaURL"] as String? { titles[url] = title }
            if let url = row["audioURL"] as String? { titles[url] = title + " (sound)" }
        }
        return titles
    }

    package func keptFeed(_ url: String) -> KeptFeed? {
        try? pool.read { db in try KeptFeed.fetchOne(db, key: url) }
    }

    /// What tells one kept copy from another, without reading its body.
    package func keptFeedStamp(_ url: String) -> String? {
        try? pool.read { db in
            try Row.fetchOne(db, sql: "SELECT length(body) AS size, etag, lastModified FROM feed WHERE url = ?", arguments: [url]).map { row in
                "\(row["size"] as Int64? ?? 0) \(row["etag"] as String? ?? "") \(row["lastModified"] as String? ?? "")"
            }
        }
    }

    package func keep(_ feed: KeptFeed) throws {
        try pool.write { db in try feed.save(db) }
    }

    /// A 304: the kept copy is still the server's; only when it was checked changes.
    package func confirm(feed url: String, at time: Double) throws {
        try pool.write { db in try db.execute(sql: "UPDATE feed SET fetched = ? WHERE url = ?", arguments: [time, url]) }
    }

    package func record(for url: String) -> IndexRecord? {
        try? pool.read { db in try IndexRecord.fetchOne(db, key: url) }
    }

    package func all() -> [IndexRecord] {
        (try? allRecords()) ?? []
    }

    package func allRecords() throws -> [IndexRecord] {
        try pool.read { db in try IndexRecord.order(Column("lastAccess").desc).fetchAll(db) }
    }

    package func save(_ record: IndexRecord) throws {
        try pool.write { db in try record.save(db) }
    }

    /// Changes a record in one transaction, creating it with `makeDefault` if absent.
    @discardableResult
    package func update(_ url: String, makeDefault: () -> IndexRecord, _ change: (inout IndexRecord) -> Void) throws -> IndexRecord {
        try pool.write { db in
            var record = try IndexRecord.fetchOne(db, key: url) ?? makeDefault()
            change(&record)
            record.updated = clock.wallTime.timeIntervalSince1970
            try record.save(db)
            return record
        }
    }

    package func touch(_ url: String) {
        let now = clock.wallTime.timeIntervalSince1970
        _ = try? pool.write { db in
            try db.execute(sql: "UPDATE entry SET lastAccess = ? WHERE url = ?", arguments: [now, url])
        }
    }

    /// Forgets an entry, and what was probed in its file.
    package func delete(_ url: String) throws {
        try pool.write { db in
            _ = try IndexRecord.deleteOne(db, key: url)
            try db.execute(sql: "DELETE FROM media WHERE url = ?", arguments: [url])
        }
    }
}

/// One row of `media`'s details, read by column position straight from
/// SQLite: GRDB's generic row decoding took a fifth of listing a 500-file
/// folder unchanged (an optional's metadata looked up per column).
private struct DetailsRow {
    var duration: Double?, title: String?, artist: String?, album: String?, codec: String?
    var width: Int?, height: Int?, sampleRate: Int?, track: Int?, disc: Int?, hasCover: Bool
    var chapters: String?, tracks: String?, loudness: String?
    var fileSize: Int64, fileTime: Double, url: String?

    /// Every row `statement` gives (its columns: `CacheIndex.detailColumns`, then the url).
    static func all(of statement: Statement) -> [DetailsRow] {
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        var rows: [DetailsRow] = []
        while sqlite3_step(raw) == SQLITE_ROW { rows.append(DetailsRow(raw)) }
        return rows
    }

    private init(_ raw: SQLiteStatement) {
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
        func double(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(raw, column) }
        func int(_ column: Int32) -> Int? { isNull(column) ? nil : Int(sqlite3_column_int64(raw, column)) }
        func text(_ column: Int32) -> String? {
            guard !isNull(column), let bytes = sqlite3_column_text(raw, column) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(raw, column))), as: UTF8.self)
        }
        duration = double(0)
        title = text(1)
        artist = text(2)
        album = text(3)
        codec = text(4)
        width = int(5)
        height = int(6)
        sampleRate = int(7)
        track = int(8)
        disc = int(9)
        hasCover = (int(10) ?? 0) != 0
        chapters = text(11)
        tracks = text(12)
        loudness = text(13)
        fileSize = Int64(int(14) ?? 0)
        fileTime = double(15) ?? 0
        url = text(16)
    }

    func details(chapters: [Chapter]?, tracks: [MediaTrack]?, loudness: Loudness?) -> StoredDetails {
        var details = MediaDetails(
            duration: duration, title: title, artist: artist, album: album, codec: codec, width: width, height: height,
            sampleRate: sampleRate, track: track, disc: disc, hasCover: hasCover
        )
        if let chapters { details.chapters = chapters }
        details.tracks = tracks
        if self.loudness != nil {
            details.measured = true
            details.loudness = loudness
        }
        return StoredDetails(details: details, fileSize: fileSize, fileTime: fileTime)
    }
}
