import Foundation
import GRDB
import MediaCacheFolder
import MediaModel
import Synchronization

/// Why the state database cannot be used (its folder is not this user's)
/// or a change was not saved: one line naming the file and the fix.
public struct StateStoreError: Error, CustomStringConvertible {
    public let description: String

    /// A write to `path` that failed with `error`: what stood in the way,
    /// as the user can mend it.
    static func cannotSave(_ path: String, _ error: any Error) -> StateStoreError {
        let folder = (path as NSString).deletingLastPathComponent
        let reason: String
        if access(path, F_OK) == 0, access(path, W_OK) != 0 {
            reason = "it is read-only (check its permissions)"
        } else if access(folder, W_OK) != 0 {
            reason = "its folder \(folder) is read-only (check the folder's permissions)"
        } else if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            reason = "the disk is full (free some space)"
        } else {
            reason = "\((error as? DatabaseError)?.message ?? "\(error)") (check the file and its folder)"
        }
        return StateStoreError(description: "cannot save to \(path): \(reason)")
    }
}

/// What the player keeps between runs, by media URL: resume positions,
/// played marks, and the settings (volume, mute, speed, the playlist's
/// modes); and per feed, the items seen (what is new). A small SQLite
/// database in the state directory (positions.sqlite): it outlives the
/// background player (and a kill -9 of it, up to the last save).
public final class StateStore: Sendable {
    let queue: DatabaseQueue
    /// The database file, for what a failed write says.
    public let path: String

    /// Where a damaged database was moved before this one was made anew
    /// (nil: it was fine).
    public let recoveredFrom: String?

    /// Opens the database at `path`; a damaged one (not a database, corrupt)
    /// is moved aside as `positions.sqlite.corrupt-DATE` and started anew:
    /// resume positions are worth less than a player that starts.
    public convenience init(path: String) throws {
        do {
            try self.init(opening: path, recoveredFrom: nil)
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            let date = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false)).replacingOccurrences(of: ":", with: "")
            let aside = path + ".corrupt-" + date
            for suffix in ["", "-wal", "-shm", "-journal"] { rename(path + suffix, aside + suffix) }
            try self.init(opening: path, recoveredFrom: aside)
        }
    }

    private init(opening path: String, recoveredFrom: String?) throws {
        self.recoveredFrom = recoveredFrom
        self.path = path
        // What a user played is theirs alone: the folder 0700 when new (an
        // existing one is used as it is, if it is this user's), the file
        // 0600 when new (SQLite gives its journal the file's mode). An
        // existing file keeps its mode: a read-only one stays read-only.
        let folder = (path as NSString).deletingLastPathComponent
        if let problem = OwnFolder.prepare(folder, privateOnly: false) {
            throw StateStoreError(description: "cannot use the state folder \(folder): \(problem)")
        }
        // Only regular files: a link planted there is not followed.
        for suffix in ["", "-wal", "-shm", "-journal"] { EntryFile.removeIfNotRegular(path + suffix) }
        let made = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if made >= 0 {
            close(made)
        } else if errno != EEXIST {
            throw StateStoreError.cannotSave(path, POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "position") { table in
                table.primaryKey("url", .text)
                table.column("seconds", .double).notNull()
                table.column("updated", .double).notNull()
            }
        }
        migrator.registerMigration("v2-settings") { db in
            // Player settings that outlive the background player (volume, mute).
            try db.create(table: "setting") { table in
                table.primaryKey("name", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v3-marks") { db in
            // Items played to (nearly) their end, by media URL, as positions.
            try db.create(table: "played") { table in
                table.primaryKey("url", .text)
                table.column("at", .double).notNull()
            }
            // Per feed, the items seen in it and those that appeared after
            // its first read and are still new, as sets of id hashes.
            try db.create(table: "feedSeen") { table in
                table.primaryKey("feed", .text)
                table.column("firstRead", .double).notNull()
                table.column("seen", .blob).notNull()
                table.column("fresh", .blob).notNull()
            }
        }
        // A read-only database that needs no migration is opened for
        // reading (list); one that does cannot be used.
        do {
            try migrator.migrate(queue)
        } catch let error as DatabaseError where ![.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            throw StateStoreError.cannotSave(path, error)
        }
    }

    /// Throws unless a change would be saved: a page is written and rolled
    /// back, so a read-only file or folder is found before a command says
    /// it kept anything.
    public func checkWritable() throws(StateStoreError) {
        do {
            try queue.inTransaction { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                try db.execute(sql: "PRAGMA user_version = \(version)")
                return .rollback
            }
        } catch {
            throw StateStoreError.cannotSave(path, error)
        }
    }

    /// Runs `updates` in a transaction; a failure says what stood in the way.
    private func write<Result>(_ updates: (Database) throws -> Result) throws(StateStoreError) -> Result {
        do {
            return try queue.write(updates)
        } catch {
            throw StateStoreError.cannotSave(path, error)
        }
    }

    /// Saves each change of the settings as it comes, for the next start
    /// (SQLite on a queue of its own, never the cooperative pool).
    public static func keep(_ events: AsyncStream<SettingsEvent>, in store: StateStore) -> Task<Void, Never> {
        let writes = DispatchQueue(label: "mediaplay.settings")
        return Task {
            for await event in events {
                writes.async {
                    // Whoever keeps a store checked it at their start
                    // (`checkWritable`); later failures have no one to tell.
                    try? store.save(event.audio)
                    try? store.save(event.playlist)
                }
            }
        }
    }

    /// The volume and mute last set, if any.
    public func audioSettings() -> AudioSettings? {
        setting("audio", as: AudioSettings.self)
    }

    /// Keeps the volume and mute for the next start.
    public func save(_ settings: AudioSettings) throws(StateStoreError) { try save("audio", settings) }

    /// The playlist's modes last set, if any.
    public func playlistMode() -> PlaylistMode? { setting("playlist", as: PlaylistMode.self) }

    /// Keeps the playlist's modes for the next start.
    public func save(_ mode: PlaylistMode) throws(StateStoreError) { try save("playlist", mode) }

    private func setting<Value: Decodable>(_ name: String, as type: Value.Type) -> Value? {
        let text = try? queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE name = ?", arguments: [name]) }
        return text.flatMap { try? JSONDecoder().decode(Value.self, from: Data($0.utf8)) }
    }

    private func save(_ name: String, _ value: some Encodable) throws(StateStoreError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting (name, value) VALUES (?, ?)", arguments: [name, ModelJSON.text(value)])
        }
    }

    public func position(for url: String) -> Double? {
        try? queue.read { db in
            try Double.fetchOne(db, sql: "SELECT seconds FROM position WHERE url = ?", arguments: [url])
        }.flatMap(Self.usable)
    }

    /// A stored position as a time: one that is not finite or out of range
    /// (written by an older version, or by hand) is dropped, never played.
    static func usable(_ seconds: Double) -> Double? {
        CheckedNumber.duration(seconds)
    }

    public func save(_ seconds: Double, for url: String) throws(StateStoreError) {
        guard let seconds = Self.usable(seconds) else { return try remove(for: url) }
        try write { db in
            try db.execute(
                sql: "INSERT INTO position (url, seconds, updated) VALUES (?, ?, ?) ON CONFLICT(url) DO UPDATE SET seconds = excluded.seconds, updated = excluded.updated",
                arguments: [url, seconds, Date().timeIntervalSince1970]
            )
        }
    }

    public func remove(for url: String) throws(StateStoreError) {
        try write { db in try db.execute(sql: "DELETE FROM position WHERE url = ?", arguments: [url]) }
    }
}

extension StateStore {
    /// Every saved position, by media URL (read once when a session starts).
    public func all() -> [String: Double] {
        let rows = try? queue.read { db in
            try Row.fetchAll(db, sql: "SELECT url, seconds FROM position")
        }
        var positions: [String: Double] = [:]
        for row in rows ?? [] {
            if let url: String = row["url"], let seconds: Double = row["seconds"], let usable = Self.usable(seconds) { positions[url] = usable }
        }
        return positions
    }
}

extension StateStore {
    /// The media URLs played to (nearly) their end.
    public func playedURLs() -> Set<String> {
        let urls = try? queue.read { db in try String.fetchAll(db, sql: "SELECT url FROM played") }
        return Set(urls ?? [])
    }

    /// Marks `url` played, or not (`mediaplay mark`; a playback that
    /// reaches its last seconds).
    public func setPlayed(_ played: Bool, for url: String) throws(StateStoreError) {
        try setPlayed(played, for: [url])
    }

    /// Marks every one of `urls` played, or not, in one transaction
    /// (`mediaplay mark --all`); marked played, their positions are
    /// forgotten too: the next start is at the top.
    public func setPlayed(_ played: Bool, for urls: [String]) throws(StateStoreError) {
        let now = Date().timeIntervalSince1970
        try write { db in
            for url in urls {
                if played {
                    try db.execute(sql: "INSERT OR REPLACE INTO played (url, at) VALUES (?, ?)", arguments: [url, now])
                    try db.execute(sql: "DELETE FROM position WHERE url = ?", arguments: [url])
                } else {
                    try db.execute(sql: "DELETE FROM played WHERE url = ?", arguments: [url])
                }
            }
        }
    }

    /// Reads `feed` (a path or URL) with these item ids: the ids that are
    /// new, having appeared since its first read and not played since
    /// (the caller leaves out those played). The first read of a feed
    /// makes nothing new: a subscription just added is not all news.
    /// Ids are kept as 64-bit hashes (a 100,000-item feed is 800 KB).
    public func newItems(in feed: String, ids: [String]) throws(StateStoreError) -> Set<String> {
        let hashes = ids.map(Self.hash)
        return try write { db in
            guard let rule = try Self.newItemsRule(db, feed) else {
                try db.execute(
                    sql: "INSERT INTO feedSeen (feed, firstRead, seen, fresh) VALUES (?, ?, ?, ?)",
                    arguments: [feed, Date().timeIntervalSince1970, Self.blob(Set(hashes)), Self.blob([])]
                )
                return []
            }
            var seen = rule.seen, fresh = rule.fresh
            let unseen = hashes.filter { !seen.contains($0) }
            if !unseen.isEmpty {
                seen.formUnion(unseen)
                fresh.formUnion(unseen)
                // Ids gone from the feed leave the fresh set.
                fresh.formIntersection(hashes)
                try db.execute(sql: "UPDATE feedSeen SET seen = ?, fresh = ? WHERE feed = ?", arguments: [Self.blob(seen), Self.blob(fresh), feed])
            }
            return Set(zip(ids, hashes).filter { rule.isNew(hash: $0.1) }.map(\.0))
        }
    }

    /// Which ids `newItems` will call new in `feed`'s next read, known
    /// before its items are (a list made as a server's pages come); nil
    /// for a feed never read (its first read makes nothing new) or a store
    /// that cannot be read (a list's marks are a nicety).
    public func newItemsRule(in feed: String) -> NewItemsRule? {
        (try? queue.read { db in try Self.newItemsRule(db, feed) }) ?? nil
    }

    private static func newItemsRule(_ db: Database, _ feed: String) throws -> NewItemsRule? {
        guard let row = try Row.fetchOne(db, sql: "SELECT seen, fresh FROM feedSeen WHERE feed = ?", arguments: [feed]) else { return nil }
        return NewItemsRule(seen: hashes(row["seen"]), fresh: hashes(row["fresh"]))
    }

    /// Takes ids out of `feed`'s new items (`mediaplay mark N old`).
    public func markSeen(in feed: String, ids: [String]) throws(StateStoreError) {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT fresh FROM feedSeen WHERE feed = ?", arguments: [feed]) else { return }
            var fresh = Self.hashes(row["fresh"])
            fresh.subtract(ids.map(Self.hash))
            try db.execute(sql: "UPDATE feedSeen SET fresh = ? WHERE feed = ?", arguments: [Self.blob(fresh), feed])
        }
    }

    /// 64-bit FNV-1a: stable across runs and platforms.
    static func hash(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private static func blob(_ hashes: Set<UInt64>) -> Data {
        var data = Data(capacity: hashes.count * 8)
        for hash in hashes {
            withUnsafeBytes(of: hash.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    private static func hashes(_ data: Data?) -> Set<UInt64> {
        guard let data else { return [] }
        var result = Set<UInt64>(minimumCapacity: data.count / 8)
        data.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count - raw.count % 8, by: 8) {
                result.insert(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
        }
        return result
    }
}

/// `newItems`' rule for one feed read before: an id is new when it was new
/// before (not since marked old or gone) or was never seen.
public struct NewItemsRule: Sendable {
    let seen: Set<UInt64>
    let fresh: Set<UInt64>

    public func isNew(_ id: String) -> Bool { isNew(hash: StateStore.hash(id)) }

    func isNew(hash: UInt64) -> Bool { fresh.contains(hash) || !seen.contains(hash) }
}
