import CLinux
import Foundation
import MediaModel

/// Starts the background player when a client finds nobody at the socket.
public enum DaemonLauncher {
    /// Connects to the daemon of `paths`, first starting `command` (argv,
    /// absolute path first) detached when nobody answers, then waiting up to
    /// `timeout` seconds for its socket.
    public static func connect(
        _ paths: ControlPaths, starting command: [String], logPath: String, timeout: Double = 10
    ) throws(ControlClientError) -> ControlClient {
        if let client = try ControlClient.connect(paths) { return client }
        let pid = try spawnDetached(command, logPath: logPath)
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 1_000
        while Date() < deadline {
            if let client = try ControlClient.connect(paths) { return client }
            // Our daemon may have lost the race to another one that starts
            // up now: exiting is not failing until the deadline passes.
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid, status != 0 {
                let detail = lastLine(of: logPath).map { ": \($0)" } ?? ""
                if (try? ControlClient.connect(paths)) == nil {
                    throw .unreachable("the background player did not start\(detail) (log: \(logPath))")
                }
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        throw .unreachable("the background player did not answer within \(Int(timeout)) s (log: \(logPath))")
    }

    /// Runs `command` in a session of its own, stdin and stdout on
    /// /dev/null and stderr appended to the log (so even a crash is recorded).
    @discardableResult
    public static func spawnDetached(_ command: [String], logPath: String) throws(ControlClientError) -> pid_t {
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
        // Nothing but stdio: a descriptor our own parent watches (a shell's
        // or test runner's pipe, say) would otherwise stay open in the
        // daemon, and that parent would wait for it forever.
        mp_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc declares it only under _GNU_SOURCE): no
        // controlling terminal, so the shell's ^C and hangup leave it alone.
        posix_spawnattr_setflags(&attributes, 0x80)
        var pid: pid_t = 0
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let result = posix_spawn(&pid, command[0], &actions, &attributes, argv, Glibc.environ)
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
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID
        var pid: pid_t = 0
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, command[0], &actions, &attributes, argv, Glibc.environ) == 0 else { return nil }
        let child = pid
        let reaper = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
        reaper.name = "mediaplay.reap"
        reaper.start()
        return pid
    }

    private static func lastLine(of path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").last.map(String.init)
    }
}
