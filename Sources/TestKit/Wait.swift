import CLinux
import Foundation
import Glibc

/// Waits for events, never for time: a file or socket appearing or going, a
/// file growing or holding a text (the kernel tells: inotify), a process
/// ending (pidfd). A test that sleeps "long enough" is late on a loaded
/// machine and slow on an idle one; these wake when the thing happens.
///
/// Every `timeout` is a bound for failures only: nothing is looked at on a
/// clock, and a wait that succeeds ends when its event comes.
public enum Wait {
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Looks at `condition` now, and again after each change at `path`,
    /// until it holds (true) or `timeout` seconds have passed (false). A
    /// folder's changes include its entries' (created, written, closed,
    /// removed, renamed); a file's, its own writes. While `path` does not
    /// exist, the nearest folder above it that does is watched, and then
    /// each folder down to it as it appears.
    @discardableResult
    public static func until(changesAt path: String, timeout: Double = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        // Watching starts before the first look: a change after that look
        // is never missed.
        let changes = try FileChanges(at: path, timeout: timeout)
        // Alive until the wait ends: its end stops the watch.
        defer { withExtendedLifetime(changes) {} }
        if try await condition() { return true }
        for await _ in changes.ticks {
            if try await condition() { return true }
        }
        return try await condition()
    }

    /// Until `path` exists (a file, a folder or a socket).
    @discardableResult
    public static func forFile(_ path: String, timeout: Double = 30) async throws -> Bool {
        try await until(changesAt: parent(of: path), timeout: timeout) { exists(path) }
    }

    /// Until nothing is at `path` any more.
    @discardableResult
    public static func forNoFile(_ path: String, timeout: Double = 30) async throws -> Bool {
        try await until(changesAt: parent(of: path), timeout: timeout) { !exists(path) }
    }

    /// Until the file at `path` holds at least `bytes` bytes.
    @discardableResult
    public static func forFile(_ path: String, size bytes: Int, timeout: Double = 30) async throws -> Bool {
        try await until(changesAt: parent(of: path), timeout: timeout) { size(of: path) >= bytes }
    }

    /// Until the file at `path` holds `text` (read as UTF-8).
    @discardableResult
    public static func forFile(_ path: String, containing text: String, timeout: Double = 30) async throws -> Bool {
        try await until(changesAt: parent(of: path), timeout: timeout) {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains(text)
        }
    }

    /// Until process `pid` has ended (a child of ours or not; a child is
    /// left to be reaped by whoever waits for it). False after `timeout`.
    public static func forExit(of pid: pid_t, timeout: Double = 30) async throws -> Bool {
        let ending = try ProcessEnding(pid)
        return try await offPool { () throws(Failure) -> Bool in try ending.wait(timeout: timeout) }
    }

    /// The size of the file at `path`; 0 when there is none.
    public static func size(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func parent(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    static func failure(_ what: String) -> Failure {
        Failure(message: "\(what): \(String(cString: strerror(errno)))")
    }
}

/// The changes at a path, as inotify reports them: one tick per batch (a
/// burst of writes is one tick), the stream ending at the deadline. A
/// thread of its own sleeps in poll(2) until the kernel or the deadline
/// wakes it.
public final class FileChanges: Sendable {
    public let ticks: AsyncStream<Void>
    private let watch: Watch

    public init(at path: String, timeout: Double) throws {
        let watch = try Watch(target: path, timeout: timeout)
        self.watch = watch
        let (ticks, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.ticks = ticks
        continuation.onTermination = { _ in watch.stop() }
        let thread = Thread {
            while watch.next() { continuation.yield(()) }
            continuation.finish()
        }
        thread.name = "testkit.file-changes"
        thread.start()
    }

    deinit { watch.stop() }

    /// The descriptors, closed when both the thread and the stream's owner
    /// are done with them (a number closed early could be another file's
    /// by the time the other side uses it).
    final class Watch: @unchecked Sendable {
        let target: String
        let inotify: Int32
        let deadline: Int32
        /// Written to stop the thread early; its read end is polled.
        let stopWrite: Int32
        let stopRead: Int32
        private let mask = UInt32(
            IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF
        )

        init(target: String, timeout: Double) throws {
            self.target = target
            inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            guard inotify >= 0 else { throw Wait.failure("cannot watch \(target) (inotify)") }
            deadline = mp_deadline_descriptor(timeout)
            var ends: [Int32] = [-1, -1]
            guard deadline >= 0, pipe(&ends) == 0 else {
                let failure = Wait.failure("cannot wait for changes at \(target)")
                close(inotify)
                if deadline >= 0 { close(deadline) }
                throw failure
            }
            stopRead = ends[0]
            stopWrite = ends[1]
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            guard watchDeepest() else {
                let failure = Wait.failure("cannot watch \(target) or a folder above it")
                for descriptor in [inotify, deadline, stopRead, stopWrite] { close(descriptor) }
                throw failure
            }
        }

        deinit {
            for descriptor in [inotify, deadline, stopRead, stopWrite] { close(descriptor) }
        }

        /// Watches the target, or while it does not exist the nearest
        /// folder above it that does (watching one already watched changes
        /// nothing). False when nothing could be watched.
        @discardableResult
        func watchDeepest() -> Bool {
            var path = target
            while true {
                if inotify_add_watch(inotify, path, mask) >= 0 { return true }
                guard errno == ENOENT || errno == ENOTDIR else { return false }
                let parent = Wait.parent(of: path)
                if parent == path { return false }
                path = parent
            }
        }

        /// Blocks until something changed (true) or the deadline passed or
        /// the watch was stopped (false).
        func next() -> Bool {
            var watched = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: deadline, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0),
            ]
            while poll(&watched, nfds_t(watched.count), -1) < 0 {
                if errno != EINTR { return false }
            }
            if watched[1].revents != 0 || watched[2].revents != 0 { return false }
            // What changed does not matter: the caller looks again.
            var buffer = [UInt8](repeating: 0, count: 8192)
            while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
            // A folder on the way to the target may have appeared.
            watchDeepest()
            return true
        }

        func stop() {
            var byte: UInt8 = 1
            _ = write(stopWrite, &byte, 1)
        }
    }
}

/// A process's end, through its pidfd: readable once it has ended.
final class ProcessEnding: @unchecked Sendable {
    private let descriptor: Int32

    init(_ pid: pid_t) throws(Wait.Failure) {
        descriptor = mp_pidfd_open(pid)
        // ESRCH: no such process, so it has ended (and been reaped).
        guard descriptor >= 0 || errno == ESRCH else { throw Wait.failure("cannot wait for process \(pid) (pidfd_open)") }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// True once it has ended; false after `timeout` seconds.
    func wait(timeout: Double) throws(Wait.Failure) -> Bool {
        guard descriptor >= 0 else { return true }
        let deadline = mp_deadline_descriptor(timeout)
        guard deadline >= 0 else { throw Wait.failure("cannot wait for a process (timerfd)") }
        defer { close(deadline) }
        var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: deadline, events: Int16(POLLIN), revents: 0)]
        while poll(&watched, 2, -1) < 0 {
            guard errno == EINTR else { throw Wait.failure("cannot wait for a process (poll)") }
        }
        return watched[0].revents != 0
    }
}
