import Foundation
import GRDB

/// Resume positions, by media URL, in a small SQLite database in the state
/// directory: they outlive the background player (and a kill -9 of it, up
/// to the last save).
public final class PositionStore: Sendable {
    private let queue: DatabaseQueue

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
        try migrator.migrate(queue)
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
