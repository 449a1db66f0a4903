import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The mark of a cache folder mediaplay made: a CACHEDIR.TAG (the Cache
/// Directory Tagging spec, https://bford.info/cachedir/, so backup tools
/// skip the folder) whose comment names mediaplay. mediaplay deletes only
/// in a folder so marked: a cache folder pointed by mistake at the user's
/// own (`--cache-dir ~/Documents`) is never marked, so never cleared.
package enum CacheTag {
    static let fileName = "CACHEDIR.TAG"
    static let signature = "Signature: 8a477f597d28d172789f06886806bc55"
    /// What tells mediaplay's tag from another program's.
    static let maker = "# This file is a cache directory tag created by mediaplay."
    static let text = signature + "\n" + maker + "\n# For information about cache directory tags, see https://bford.info/cachedir/\n"

    /// Whether `directory` holds mediaplay's tag (a regular file, never
    /// followed through a link or opened as a FIFO).
    package static func isMarked(_ directory: String) -> Bool {
        let descriptor = open(directory + "/" + fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return false }
        let lines = String(decoding: bytes[..<count], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.first == Substring(signature) && lines.contains(Substring(maker))
    }

    /// Marks `directory` as mediaplay's when all it holds is what mediaplay
    /// writes there: a folder just made, or a cache of a version before the
    /// tag. Returns whether the folder is marked.
    @discardableResult
    package static func claim(_ directory: String) -> Bool {
        if isMarked(directory) { return true }
        guard holdsOnlyMediaplaysFiles(directory) else { return false }
        let path = directory + "/" + fileName
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            // Another mediaplay is writing it (a few hundred bytes): wait
            // for them rather than read the folder as someone else's.
            guard errno == EEXIST else { return false }
            for _ in 0..<50 {
                if isMarked(directory) { return true }
                usleep(1000)
            }
            return false
        }
        let bytes = Array(text.utf8)
        let written = write(descriptor, bytes, bytes.count)
        close(descriptor)
        guard written == bytes.count else {
            // A tag cut short would leave the folder unmarked for good.
            unlink(path)
            return false
        }
        return true
    }

    /// Whether everything in `directory` is what mediaplay writes there:
    /// its index (when there, with mediaplay's tables), companions and
    /// locks, and in `entries/` only files named as mediaplay names them.
    static func holdsOnlyMediaplaysFiles(_ directory: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        for name in names {
            switch name {
            case "entries", fileName, "measure.lock",
                 "index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal", "index.sqlite.setup-lock":
                continue
            case _ where name.hasPrefix("index.sqlite.corrupt-"):
                continue
            default:
                return false
            }
        }
        let entries = directory + "/entries"
        if names.contains("entries") {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: entries),
                  files.allSatisfy(CacheFolder.isEntryFileName) else { return false }
        }
        return !names.contains("index.sqlite") || CacheIndex.isCacheIndex(directory + "/index.sqlite")
    }
}
