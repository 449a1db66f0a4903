import Foundation
import MediaInterfaces

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on one cache entry, shared across processes (flock on a
/// `.lock` file). The kernel drops it when the holder dies, even by kill -9,
/// so a crashed download never leaves an entry locked.
package final class EntryLock: @unchecked Sendable {
    private let fd: Int32
    package let path: String

    /// Opens (creating if needed) the lock file; does not lock yet.
    package init(path: String) throws(CacheError) {
        self.path = path
        fd = EntryFile.open(path, O_RDWR | O_CREAT)
        if fd < 0 {
            throw CacheError.io("cannot create lock file \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        // Closing releases the lock, if held.
        close(fd)
    }

    /// Takes the lock if free; false when another process holds it.
    package func tryLock() -> Bool {
        flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    /// Waits for the lock. Blocks the calling thread: call it on a thread of
    /// its own, never on the cooperative pool.
    package func lock() {
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
    }

    package func unlock() {
        _ = flock(fd, LOCK_UN)
    }

    /// Whether some process (this one included) holds the lock on `path` now.
    package static func isHeld(path: String) -> Bool {
        let probe = EntryFile.open(path, O_RDONLY)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        if flock(probe, LOCK_SH | LOCK_NB) == 0 {
            flock(probe, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}
