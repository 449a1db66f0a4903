import Foundation
import GRDB

/// Resume positions, by media URL, in a small SQLite database in the state
/// directory: they outlive the background player (and a kill -9 of it, up
/// to the last save).
public final class PositionStore: Sendable {
    private let queue: DatabaseQueue

    public init(path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
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
