import Foundation
import MediaFeed
import MediaModel

/// Where the background player listens, and its other files, for a runtime dir.
public struct ControlPaths: Sendable {
    public let runtimeDirectory: String

    public init(runtimeDirectory: String) {
        self.runtimeDirectory = runtimeDirectory
    }

    public var socket: String { runtimeDirectory + "/mediaplay.sock" }
    /// Where the daemon binds its socket; renamed to `socket` once it
    /// listens, so the socket appears ready to answer.
    public var socketBeingBound: String { runtimeDirectory + "/mediaplay.new" }
    /// Held (flock) by the running daemon, or by the client starting it:
    /// one per runtime dir (`RuntimeLock`).
    public var lock: String { runtimeDirectory + "/" + RuntimeLock.lockName }
}

/// Why the runtime folder's lock file cannot be opened.
public struct RuntimeLockError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// The runtime folder's lock. Whoever holds it owns the folder's one
/// background player: a client takes it before it starts the daemon and
/// hands it over (`DaemonLauncher`), so a second starter finds it taken and
/// joins the first instead of starting another. Nobody waits to take it.
public enum RuntimeLock {
    /// Opens the lock file of `paths` (made 0600 when missing). The folder
    /// must exist.
    public static func open(_ paths: ControlPaths) throws(RuntimeLockError) -> Int32 {
        // Opened through the folder, never following a link: a link
        // planted as the lock would otherwise have its target truncated.
        let folder = Glibc.open(paths.runtimeDirectory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else {
            throw RuntimeLockError(message: "cannot open the runtime directory \(paths.runtimeDirectory): \(String(cString: strerror(errno))) (pass --runtime-dir DIR)")
        }
        defer { close(folder) }
        let descriptor = openat(folder, lockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link; remove it" : String(cString: strerror(errno))
            throw RuntimeLockError(message: "cannot open \(paths.lock): \(reason)")
        }
        return descriptor
    }

    /// Takes the lock on `descriptor` without waiting; false when another
    /// holds it.
    public static func take(_ descriptor: Int32) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Whether `descriptor` is the lock file of `paths` (not a link, not
    /// another file): what a daemon handed a lock checks first.
    public static func isLock(_ descriptor: Int32, of paths: ControlPaths) -> Bool {
        var held = stat()
        var named = stat()
        guard fstat(descriptor, &held) == 0, lstat(paths.lock, &named) == 0 else { return false }
        return named.st_mode & S_IFMT == S_IFREG && held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// Writes `pid` into the lock file as its holder's: the pid clients
    /// name in their messages and wait on.
    public static func record(_ pid: pid_t, in descriptor: Int32) {
        ftruncate(descriptor, 0)
        let text = Array("\(pid)\n".utf8)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// Lets go of the lock, then closes it: released first, so a client
    /// woken by the close finds it free.
    public static func release(_ descriptor: Int32) {
        // No pid left behind: a waiting client would take it for a holder's.
        ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    static let lockName = "mediaplay.lock"
}

/// How long a client waits for the background player before it says that
/// it does not answer: for a connection, and for each line of a reply (a
/// long toggle sends its progress in between). `MEDIAPLAY_CLIENT_TIMEOUT`
/// (seconds) changes it.
public enum ClientTimeout {
    public static let standard: Double = 10

    public static func seconds(_ environment: (String) -> String? = { CommandContext.current.variable($0) }) -> Double {
        guard let text = environment("MEDIAPLAY_CLIENT_TIMEOUT"), let value = Double(text), value.isFinite, value > 0 else { return standard }
        return min(value, 3600)
    }

    /// Now plus `seconds`, as a request's `expires`: milliseconds of the
    /// date, since the client's and the daemon's clocks are compared.
    public static func expiry(after seconds: Double, clock: any MediaClock = SystemClock.shared) -> Int64 {
        Int64((clock.wallTime.timeIntervalSince1970 + seconds) * 1000)
    }
}
