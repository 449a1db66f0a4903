import Foundation
import MediaCache
@testable import MediaSession
@testable import MediaState
import GRDB
import Testing
import TestKit

/// What a user plays and downloads is theirs alone: the state and cache
/// folders are 0700 and their databases 0600 (CI's umask is 022).
@Suite(.serialized) struct PrivateFilesTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test func positionsAndTheCacheIndexAreNotWorldReadable() throws {
        let folder = try TemporaryDirectory()
        let positions = try StateStore(path: folder.path + "/state/mediaplay/positions.sqlite")
        try positions.save(12.5, for: "file:///a.mp3")
        #expect(Self.mode(folder.path + "/state/mediaplay") == 0o700)
        #expect(Self.mode(folder.path + "/state/mediaplay/positions.sqlite") == 0o600)

        let cache = try MediaCache(directory: folder.path + "/cache")
        #expect(Self.mode(folder.path + "/cache") == 0o700)
        for suffix in ["", "-wal", "-shm"] {
            let path = folder.path + "/cache/index.sqlite" + suffix
            if FileManager.default.fileExists(atPath: path) { #expect(Self.mode(path) == 0o600, "\(path)") }
        }
        withExtendedLifetime(cache) {}
    }

    /// A folder mediaplay did not make is used as it is, never changed (a
    /// setting or a link may point at a shared one); its files are still 0600.
    @Test func anExistingFolderKeepsItsMode() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/state", withIntermediateDirectories: true)
        chmod(folder.path + "/state", 0o755)
        let positions = try StateStore(path: folder.path + "/state/positions.sqlite")
        try positions.save(1, for: "file:///a.mp3")
        #expect(Self.mode(folder.path + "/state") == 0o755)
        #expect(Self.mode(folder.path + "/state/positions.sqlite") == 0o600)
    }

    /// An existing positions file keeps its mode (it was set to 0600 at
    /// every open, a read-only one made writable); a check of writing
    /// changes nothing in it.
    @Test func anExistingPositionsFileKeepsItsMode() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/positions.sqlite"
        let made = try StateStore(path: path)
        try made.save(3, for: "file:///a.mp3")
        for mode: mode_t in [0o644, 0o640, 0o444] {
            chmod(path, mode)
            let positions = try StateStore(path: path)
            try positions.checkWritable()  // root writes a 0444 file
            #expect(positions.position(for: "file:///a.mp3") == 3)
            #expect(Self.mode(path) == mode, "\(String(mode, radix: 8))")
        }
    }

    /// A link in place of the state folder is refused, its target untouched.
    @Test func aLinkedStateFolderIsRefused() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/shared", withIntermediateDirectories: true)
        chmod(folder.path + "/shared", 0o777)
        symlink(folder.path + "/shared", folder.path + "/state")
        #expect(throws: (any Error).self) { try StateStore(path: folder.path + "/state/positions.sqlite") }
        #expect(Self.mode(folder.path + "/shared") == 0o777)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/shared/positions.sqlite"))
    }

    /// A damaged positions file is moved aside and started anew: the
    /// player starts (it refused every toggle before).
    @Test func aCorruptPositionsFileIsMovedAsideAndRebuilt() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/positions.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let positions = try StateStore(path: path)
        let aside = try #require(positions.recoveredFrom)
        #expect(aside.hasPrefix(path + ".corrupt-"))
        #expect(FileManager.default.fileExists(atPath: aside))
        try positions.save(5, for: "file:///b.mp3")
        #expect(positions.position(for: "file:///b.mp3") == 5)
    }

    /// A position that is not a time (written by an older version) is
    /// dropped on read, and never written.
    @Test func aNonFinitePositionIsDropped() throws {
        let folder = try TemporaryDirectory()
        let positions = try StateStore(path: folder.path + "/positions.sqlite")
        try positions.save(.infinity, for: "file:///c.mp3")
        #expect(positions.position(for: "file:///c.mp3") == nil)
        try positions.save(7, for: "file:///d.mp3")
        try positions.queue.write { db in try db.execute(sql: "UPDATE position SET seconds = 1e999") }
        #expect(positions.position(for: "file:///d.mp3") == nil)
        #expect(positions.all().isEmpty)
    }
}
