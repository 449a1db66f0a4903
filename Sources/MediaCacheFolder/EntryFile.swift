import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The cache's own files (entries, part files, locks, the index) are opened
/// only as what they must be: regular files, never through a symbolic link.
/// Anyone who can write the cache folder could plant a link (`fetch` would
/// then overwrite its target) or a FIFO (an `open` that never returns); what
/// is found in a file's place is removed, and the file made or fetched anew.
public enum EntryFile {
    /// Opens `path` as a regular file, without following a link and without
    /// blocking (a FIFO would block `open`). Anything else in its place is
    /// removed first; with `O_CREAT` the file is then made, without it the
    /// call fails with ENOENT. Returns the descriptor, or -1 with `errno`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) -> Int32 {
        for _ in 0..<2 {
            let descriptor = Glibc.open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
            if descriptor >= 0 {
                var info = stat()
                if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                    // Back to blocking (it changes nothing for a regular file,
                    // but says what the caller expects).
                    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                    return descriptor
                }
                close(descriptor)
            } else if ![ELOOP, ENXIO, EISDIR, EWOULDBLOCK].contains(errno) {
                return -1
            }
            // A link, a FIFO, a socket, a folder or a device: not ours to read.
            guard removeIfNotRegular(path) else { break }
        }
        errno = ENOENT
        return -1
    }

    /// True when `path` is a regular file (not followed through a link).
    /// Anything else there is removed, so that the caller fetches anew.
    public static func isRegular(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        if info.st_mode & S_IFMT == S_IFREG { return true }
        removeIfNotRegular(path)
        return false
    }

    /// Removes what stands at `path` unless it is a regular file; true when
    /// something was removed. A folder is removed only when empty.
    @discardableResult
    public static func removeIfNotRegular(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return false }
        return info.st_mode & S_IFMT == S_IFDIR ? rmdir(path) == 0 : unlink(path) == 0
    }

    /// The size of the regular file at `path`, not followed through a link
    /// (nil: none there, or something else).
    public static func size(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
