import Foundation
import GRDB
import MediaCacheFolder
import MediaModel
import Synchronization

/// Why the state database cannot be used (its folder is not this user's).
public struct StateStoreError: Error, CustomStringConvertible {
    public let description: String
}

/// What the player keeps between runs, by media URL: resume positions, and
/// the settings (volume, mute, speed, the playlist's modes), in a small SQLite database in the state directory (positions.sqlite): they outlive the
/// background player (and a kill -9 of it, up to the last save).
public final class StateStore: Sendable {
    let queue: DatabaseQueue

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
        // What a user played is theirs alone: the folder 0700 when new (an
        // existing one is used as it is, if it is this user's), the files 0600.
        let folder = (path as NSString).deletingLastPathComponent
        if let problem = OwnFolder.prepare(folder, privateOnly: false) {
            throw StateStoreError(description: "cannot use the state folder \(folder): \(problem)")
        }
        // Only regular files: a link planted there is not followed.
        for suffix in ["", "-wal", "-shm", "-journal"] { EntryFile.removeIfNotRegular(path + suffix) }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { _ in
            for suffix in ["", "-wal", "-shm", "-journal"] { chmod(path + suffix, 0o600) }
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        for suffix in ["", "-wal", "-shm", "-journal"] { chmod(path + suffix, 0o600) }
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
        try migrator.migrate(queue)
    }

    /// Saves each change of the settings as it comes, for the next start
    /// (SQLite on a queue of its own, never the cooperative pool).
    public static func keep(_ events: AsyncStream<SettingsEvent>, in store: StateStore) -> Task<Void, Never> {
        let writes = DispatchQueue(label: "mediaplay.settings")
        return Task {
            for await event in events {
                writes.async {
                    store.save(event.audio)
                    store.save(event.playlist)
                }
            }
        }
    }

    /// The volume and mute last set, if any.
    public func audioSettings() -> AudioSettings? {
        setting("audio", as: AudioSettings.self)
    }

    /// Keeps the volume and mute for the next start.
    public func save(_ settings: AudioSettings) { save("audio", settings) }

    /// The playlist's modes last set, if any.
    public func playlistMode() -> PlaylistMode? { setting("playlist", as: PlaylistMode.self) }

    /// Keeps the playlist's modes for the next start.
    public func save(_ mode: PlaylistMode) { save("playlist", mode) }

    private func setting<Value: Decodable>(_ name: String, as type: Value.Type) -> Value? {
        let text = try? queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE name = ?", arguments: [name]) }
        return text.flatMap { try? JSONDecoder().decode(Value.self, from: Data($0.utf8)) }
    }

    private func save(_ name: String, _ value: some Encodable) {
        try? queue.write { db in
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

    public func save(_ seconds: Double, for url: String) {
        guard let seconds = Self.usable(seconds) else { return remove(for: url) }
        try? queue.write { db in
            try db.execute(
                sql: "INSERT INTO position (url, seconds, updated) VALUES (?, ?, ?) ON CONFLICT(url) DO UPDATE SET seconds = excluded.seconds, updated = excluded.updated",
                arguments: [url, seconds, Date().timeIntervalSince1970]
            )
        }
    }

    public func remove(for url: String) {
        try? queue.write { db in try db.execute(sql: "DELETE FROM position WHERE url = ?", arguments: [url]) }
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

/// The session's view of resume positions: read from memory, written to the
/// store on a queue of their own, so no SQLite call runs under the
/// session's lock or on Swift's cooperative pool. Keyed by the item's media
/// URL: a position belongs to the file (the same file in two feeds resumes
/// at one place; an item whose URL changed is another file and starts over).
final class ResumePositions: Sendable {
    private let store: StateStore?
    private let known: Mutex<[String: Double]>
    private let writes = DispatchQueue(label: "mediaplay.positions")

    init(store: StateStore?) {
        self.store = store
        known = Mutex(store?.all() ?? [:])
    }

    func position(for url: String) -> Double? { known.withLock { $0[url] } }

    func save(_ seconds: Double, for url: String) {
        known.withLock { $0[url] = seconds }
        guard let store else { return }
        writes.async { store.save(seconds, for: url) }
    }

    func remove(for url: String) {
        known.withLock { $0[url] = nil }
        guard let store else { return }
        writes.async { store.remove(for: url) }
    }

    /// Reads `url`'s saved position again (another process, the background
    /// player or browse, may have saved it since), after the writes queued
    /// so far. Blocking: run off the cooperative pool.
    func refresh(_ url: String) {
        guard let store else { return }
        writes.sync {
            let saved = store.position(for: url)
            known.withLock { $0[url] = saved }
        }
    }

    /// Waits for the writes queued so far (at shutdown).
    func flush() {
        writes.sync {}
    }
}
