import CLinux
import Foundation
import MediaModel

/// Starts the background player when a client finds nobody at the socket.
public enum DaemonLauncher {
    /// Connects to the daemon of `paths`, first starting `command` (argv,
    /// absolute path first) detached when nobody answers, then waiting up to
    /// `timeout` seconds for its socket.
    ///
    /// One player per runtime folder, however many clients start at once:
    /// the client that takes the folder's lock starts the daemon and hands
    /// it the lock (`--lock-fd 3` is added to `command`); every other one
    /// finds the lock taken and waits for that daemon's socket. A holder
    /// that ends without a socket (a player quitting as we came) lets the
    /// lock go, and the next client to take it starts a new one.
    public static func connect(
        _ paths: ControlPaths, starting command: [String], logPath: String, timeout: Double = 10
    ) throws(ControlClientError) -> ControlClient {
        if let client = try ControlClient.connect(paths) { return client }
        // Made here as the daemon makes it: the lock and the watch live in it.
        if let problem = OwnFolder.prepare(paths.runtimeDirectory, privateOnly: true) {
            throw .unreachable("refusing the runtime directory \(paths.runtimeDirectory): \(problem) (remove it, or pass --runtime-dir DIR)")
        }
        // Before the first look: whatever happens after it wakes the wait.
        let events = try StartEvents(folder: paths.runtimeDirectory, seconds: timeout)
        // Kept open while we wait: opening and closing it again would wake
        // every waiting client, this one too.
        var lock: Int32
        do {
            lock = try RuntimeLock.open(paths)
        } catch {
            throw .unreachable(error.message)
        }
        defer { if lock >= 0 { close(lock) } }
        var started: (pid: pid_t, end: ProcessEnd?)?
        while true {
            if let client = try ControlClient.connect(paths) { return client }
            let holder: ProcessEnd?
            if let daemon = started {
                var status: Int32 = 0
                if waitpid(daemon.pid, &status, WNOHANG) == daemon.pid {
                    let detail = lastLine(of: logPath).map { ": \($0)" } ?? ""
                    throw .unreachable("the background player did not start\(detail) (log: \(logPath))")
                }
                holder = daemon.end
            } else if RuntimeLock.take(lock) {
                let pid = try spawnDetached(command + ["--lock-fd", "3"], logPath: logPath, handing: lock)
                RuntimeLock.record(pid, in: lock)
                // The daemon holds it now (the same open file): closing our
                // descriptor keeps it held until the daemon lets go.
                close(lock)
                lock = -1
                started = (pid, ProcessEnd(pid))
                continue
            } else if let pid = recordedHolder(lock) {
                holder = ProcessEnd(pid)
            } else {
                // Taken, and its pid not written yet: the write wakes us.
                holder = nil
            }
            // The kernel lets a dead process's lock go just after it reports
            // the file closed, and says nothing more: a holder we cannot
            // wait on (gone, or a kernel without pidfd) is looked at again
            // every 20 ms instead.
            let unwatched = holder == nil && (started != nil || recordedHolder(lock) != nil)
            guard events.wait(for: holder, orAtMost: unwatched ? 20 : -1) else {
                throw .unreachable("the background player did not answer within \(Int(timeout)) s (log: \(logPath))")
            }
        }
    }

    /// The pid the lock's holder wrote into it (`RuntimeLock.record`).
    private static func recordedHolder(_ lock: Int32) -> pid_t? {
        guard lock >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(lock, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return pid_t(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// Runs `command` in a session of its own, stdin and stdout on
    /// /dev/null and stderr appended to the log (so even a crash is recorded).
    /// `handing`, a descriptor, becomes the program's descriptor 3.
    @discardableResult
    public static func spawnDetached(_ command: [String], logPath: String, handing handed: Int32? = nil) throws(ControlClientError) -> pid_t {
        // The state folder: made private (0700) when new, never changed when
        // it exists, and refused when it is a link or another user's.
        let folder = (logPath as NSString).deletingLastPathComponent
        if let problem = OwnFolder.prepare(folder, privateOnly: false) {
            throw .unreachable("cannot use the state folder \(folder): \(problem) (set XDG_STATE_HOME to a folder of yours)")
        }
        // The spawn opens the log for stderr: a failure there would read as
        // the program's own ("No such file or directory"), so name the path.
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard log >= 0 else {
            throw .unreachable("cannot write the background player's log at \(logPath): \(String(cString: strerror(errno))) (set XDG_STATE_HOME, or HOME, to a writable folder)")
        }
        close(log)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        var copy: Int32 = -1
        defer { if copy >= 0 { close(copy) } }
        if let handed {
            // From a number other than 3: dup2 onto itself would leave it
            // close-on-exec.
            copy = fcntl(handed, F_DUPFD_CLOEXEC, 4)
            guard copy >= 0 else {
                throw .unreachable("cannot hand the background player its lock: \(String(cString: strerror(errno)))")
            }
            posix_spawn_file_actions_adddup2(&actions, copy, 3)
        }
        // Nothing but stdio (and what is handed): a descriptor our own
        // parent watches (a shell's or test runner's pipe, say) would
        // otherwise stay open in the daemon, and that parent would wait for
        // it forever.
        mp_spawn_close_from(&actions, handed == nil ? 3 : 4)
        var pid: pid_t = 0
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // A session of its own: no controlling terminal, so the shell's ^C
        // and hangup leave it alone.
        let result = withEnvironment { environment in
            SpawnAttributes.ownSession.with { posix_spawn(&pid, command[0], &actions, &$0, argv, environment) }
        }
        guard result == 0 else {
            throw .unreachable("cannot start the background player \(command[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Runs `command` (argv, absolute path first) in a session of its own
    /// with every standard stream on /dev/null, and reaps it when it ends
    /// (a thread of its own waits); nil when it could not start.
    @discardableResult
    public static func spawnQuietly(_ command: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        mp_spawn_close_from(&actions, 3)
        var pid: pid_t = 0
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let result = withEnvironment { environment in
            SpawnAttributes.ownSession.with { posix_spawn(&pid, command[0], &actions, &$0, argv, environment) }
        }
        guard result == 0 else { return nil }
        let child = pid
        let reaper = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
        reaper.name = "mediaplay.reap"
        reaper.start()
        return pid
    }

    /// The environment a child starts with: the running command's
    /// (`CommandContext.current`), the process's own unless a test gave one.
    private static func withEnvironment<T>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        switch CommandContext.current.environmentSource {
        case .process:
            return body(Glibc.environ)
        case let .given(values):
            let pointers = values.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in pointers { free(pointer) } }
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }

    private static func lastLine(of path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").last.map(String.init)
    }
}

/// A process to wait for: its pidfd, readable once it has ended. nil when
/// it has ended already, or the kernel has no pidfd (before 5.3).
final class ProcessEnd {
    let descriptor: Int32

    init?(_ pid: pid_t) {
        descriptor = mp_pidfd_open(pid)
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Waits up to `seconds`; true when the process has ended.
    func wait(seconds: Double) -> Bool {
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(max(seconds, 0), 3600) * 1000)
        while true {
            let ready = poll(&watched, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { return false }
        }
    }
}

/// What a client starting the background player waits for: a change in
/// the runtime folder (a socket appearing, the lock file written or
/// closed: inotify), the end of a process (the lock's holder), or the
/// deadline (a timer, so no clock is read in between).
final class StartEvents {
    private let folderWatch: Int32
    private let deadline: Int32

    init(folder: String, seconds: Double) throws(ControlClientError) {
        deadline = mp_deadline_descriptor(seconds)
        guard deadline >= 0 else { throw .unreachable("cannot wait for the background player: \(String(cString: strerror(errno)))") }
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if watch >= 0, inotify_add_watch(watch, folder, UInt32(IN_CREATE | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE)) < 0 {
            close(watch)
            folderWatch = -1
        } else {
            folderWatch = watch
        }
    }

    deinit {
        close(deadline)
        if folderWatch >= 0 { close(folderWatch) }
    }

    /// Waits until something may have changed, or `tick` milliseconds
    /// (-1: no tick); false once the deadline has passed.
    func wait(for process: ProcessEnd?, orAtMost tick: Int32 = -1) -> Bool {
        var watched = [pollfd(fd: deadline, events: Int16(POLLIN), revents: 0)]
        if folderWatch >= 0 { watched.append(pollfd(fd: folderWatch, events: Int16(POLLIN), revents: 0)) }
        if let process { watched.append(pollfd(fd: process.descriptor, events: Int16(POLLIN), revents: 0)) }
        // Without inotify (every instance of the user's taken) nothing tells
        // when the socket appears: look every 20 ms.
        let timeout = folderWatch < 0 && (tick < 0 || tick > 20) ? 20 : tick
        while poll(&watched, nfds_t(watched.count), timeout) < 0 && errno == EINTR {}
        if watched[0].revents != 0 { return false }
        if folderWatch >= 0 { drain() }
        return true
    }

    /// Reads the events away: what they were does not matter, the caller
    /// looks at the folder again.
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(folderWatch, $0.baseAddress, $0.count) }) > 0 {}
    }
}
