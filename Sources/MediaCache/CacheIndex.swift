import Foundation
import GRDB

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
}

/// The SQLite index of the cache, shared by every mediaplay process using the
/// same cache folder (WAL mode, so readers never wait for a writer).
///
/// The files are the truth about bytes: a data file exists only once verified.
/// The index adds what the files cannot say: validators for resuming and
/// revalidating, sizes, failures and last access.
final class CacheIndex: Sendable {
    private let pool: DatabasePool

    init(path: String) throws {
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
        }
        pool = try DatabasePool(path: path, configuration: configuration)
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
        try migrator.migrate(pool)
    }

    func record(for url: String) -> IndexRecord? {
        try? pool.read { db in try IndexRecord.fetchOne(db, key: url) }
    }

    func all() -> [IndexRecord] {
        (try? pool.read { db in try IndexRecord.order(Column("lastAccess").desc).fetchAll(db) }) ?? []
    }

    func save(_ record: IndexRecord) throws {
        try pool.write { db in try record.save(db) }
    }

    /// Changes a record in one transaction, creating it with `makeDefault` if absent.
    @discardableResult
    func update(_ url: String, makeDefault: () -> IndexRecord, _ change: (inout IndexRecord) -> Void) throws -> IndexRecord {
        try pool.write { db in
            var record = try IndexRecord.fetchOne(db, key: url) ?? makeDefault()
            change(&record)
            record.updated = Date().timeIntervalSince1970
            try record.save(db)
            return record
        }
    }

    func touch(_ url: String) {
        _ = try? pool.write { db in
            try db.execute(sql: "UPDATE entry SET lastAccess = ? WHERE url = ?", arguments: [Date().timeIntervalSince1970, url])
        }
    }

    func delete(_ url: String) throws {
        _ = try pool.write { db in try IndexRecord.deleteOne(db, key: url) }
    }
}
