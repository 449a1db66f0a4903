import Foundation

/// The folders mediaplay keeps its files in (runtime, cache, state): made
/// by mediaplay (0700) when missing, else used only when they are real
/// folders of this user. A folder mediaplay did not create is never changed:
/// no chmod, and a symbolic link is refused before anything resolves it (a
/// link to a shared folder would otherwise get mediaplay's files, or its mode).
public enum OwnFolder {
    /// Creates `path` (0700, missing parents with the usual mode) or checks
    /// the existing one: not a link, a folder, owned by this user, and with
    /// `privateOnly`, closed to others. Returns why it cannot be used (a
    /// short reason, e.g. "it is a symbolic link"), or nil.
    public static func prepare(_ path: String, privateOnly: Bool) -> String? {
        if mkdir(path, 0o700) != 0 && errno == ENOENT {
            try? FileManager.default.createDirectory(atPath: parent(path), withIntermediateDirectories: true)
            _ = mkdir(path, 0o700)
        }
        return problem(path, privateOnly: privateOnly, missingIsFine: false)
    }

    /// Why the existing `path` is not ours to use, or nil (also nil when it
    /// does not exist and `missingIsFine`).
    public static func problem(_ path: String, privateOnly: Bool, missingIsFine: Bool = true) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT && missingIsFine { return nil }
            return String(cString: strerror(errno))
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK: return "it is a symbolic link"
        case S_IFDIR: break
        default: return "it is not a folder"
        }
        if info.st_uid != geteuid() { return "it belongs to uid \(info.st_uid), not to you" }
        if privateOnly && info.st_mode & 0o077 != 0 {
            return "others can enter it (mode \(String(info.st_mode & 0o777, radix: 8)))"
        }
        return nil
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
