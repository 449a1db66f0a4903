import Foundation
import MediaCache
import MediaSession
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
        // An existing state folder left open by an older version is closed too.
        try FileManager.default.createDirectory(atPath: folder.path + "/state/mediaplay", withIntermediateDirectories: true)
        chmod(folder.path + "/state/mediaplay", 0o755)
        let positions = try PositionStore(path: folder.path + "/state/mediaplay/positions.sqlite")
        positions.save(12.5, for: "file:///a.mp3")
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
}
