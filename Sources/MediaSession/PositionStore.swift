import Foundation
import GRDB
import MediaModel
import Synchronization

/// Resume positions, by media URL, and the player's settings (volume, mute)
/// in a small SQLite database in the state directory: they outlive the
/// background player (and a kill -9 of it, up to the last save).
public final class PositionStore: Sendable {
    let queue: DatabaseQueue

    public init(path: String) throws {
        // What a user played is theirs alone: the folder 0700, the files 0600.
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o700)
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
        }
    }

    public func save(_ seconds: Double, for url: String) {
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

extension PositionStore {
    /// Every saved position, by media URL (read once when a session starts).
    public func all() -> [String: Double] {
        let rows = try? queue.read { db in
            try Row.fetchAll(db, sql: "SELECT url, seconds FROM position")
        }
        var positions: [String: Double] = [:]
        for row in rows ?? [] {
            if let url: String = row["url"], let seconds: Double = row["seconds"] { positions[url] = seconds }
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
    private let store: PositionStore?
    private let known: Mutex<[String: Double]>
    private let writes = DispatchQueue(label: "mediaplay.positions")

    init(store: PositionStore?) {
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
