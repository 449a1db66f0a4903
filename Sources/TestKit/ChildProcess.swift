import CLinux
import Foundation
import MediaModel
import Glibc

/// A program the tests, the benchmarks and the demo start: the one process
/// runner of the test kit. stdin, stdout and stderr go to files (or stay the
/// caller's, when nil) and no other descriptor of this process is passed on:
/// posix_spawn closes every other one in the child. Foundation's Process cannot promise that, and tests run in
/// parallel: a long-lived child (a held download, a picture on screen) that
/// inherited the socket through which Process watches another test's child
/// made that test's wait last as long as the first child.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    let executable: String
    let arguments: [String]
    private let lock = NSLock()
    /// The raw wait status, once reaped.
    private var waitStatus: Int32?

    public init(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdin: String? = "/dev/null", stdout: String? = "/dev/null", stderr: String? = "/dev/null"
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0) }
        if let stdout { posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        if let stderr { posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        mp_spawn_close_from(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        // The child starts as from a shell: no signal blocked or ignored (the
        // spawning thread's mask would be inherited, and a test thread may
        // block SIGTERM: a child then never received it).
        var pid: pid_t = 0
        let result = SpawnAttributes().with { attributes in
            var result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            // A program copied just now may still be open for writing in a
            // child another test thread is spawning (it inherited the
            // descriptor until its exec): exec fails with ETXTBSY for that
            // moment. Tried again each time the file changes (a writer
            // letting go of it: inotify, watched before each try), for a
            // second at most.
            if result == ETXTBSY, let changes = try? FileChanges.Watch(target: executable, timeout: 1) {
                repeat {
                    result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
                } while result == ETXTBSY && changes.next()
            }
            return result
        }
        guard result == 0 else {
            throw Fixtures.FixtureError(message: "cannot run \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.executable = executable
        self.arguments = arguments
    }

    /// Whether it has not exited yet (reaps it once it has).
    public var isRunning: Bool {
        lock.withLock {
            if waitStatus != nil { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { waitStatus = status }
            return waitStatus == nil
        }
    }

    /// How long a test waits for a program it started before taking it for
    /// hung: far beyond any test's run (the longest take seconds), so it
    /// is a bound for failures only, never a clock a test races.
    public static let hangBound: Double = 300

    /// What a hung program was doing when `waitUntilExit` gave up on it:
    /// every thread's stack (gdb), then it was killed.
    public var hangReport: String? { lock.withLock { report } }
    private var report: String?

    /// Blocks until it exits (call it off the pool: see `offPool`); returns
    /// the raw wait status. Still running after `bound` seconds, it is
    /// taken for hung: its threads' stacks are kept in `hangReport` (and
    /// printed on this process's stderr, so a CI log shows them whatever
    /// the test does next), then it is killed and the wait goes on.
    @discardableResult
    public func waitUntilExit(bound: Double = ChildProcess.hangBound) -> Int32 {
        // Once reaped (by `isRunning`), its pid may be another process's.
        if lock.withLock({ waitStatus == nil }), let ending = try? ProcessEnding(pid), (try? ending.wait(timeout: bound)) == false {
            let stacks = Self.stacks(of: pid)
            let text = "test kit: \(executable) \(arguments.joined(separator: " ")) (pid \(pid)) still running after \(Int(bound)) s; killed. Its threads:\n\(stacks)\n"
            lock.withLock { report = text }
            FileHandle.standardError.write(Data(text.utf8))
            _ = kill(pid, SIGKILL)
        }
        // Wait without reaping, so that `isRunning` on another thread never
        // finds the pid gone before the status is stored.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        return lock.withLock {
            if let waitStatus { return waitStatus }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            waitStatus = status
            return status
        }
    }

    /// Every thread's stack of process `pid`, as gdb prints them (a
    /// minute at most); what went wrong when gdb cannot.
    static func stacks(of pid: pid_t) -> String {
        guard let scratch = try? TemporaryDirectory() else { return "(no folder for gdb's output)" }
        let output = scratch.path + "/stacks"
        // gdb killed if it outlives its minute: attached, it would hold the process unreaped.
        let arguments = ["-k", "5", "60", "gdb", "-p", "\(pid)", "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt 40"]
        guard let gdb = try? ChildProcess("/usr/bin/timeout", arguments, environment: ["PATH": "/usr/bin:/bin"], stdout: output, stderr: output) else {
            return "(gdb could not be started: install-deps.sh --test installs it)"
        }
        _ = gdb.waitUntilExit(bound: 120)
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? "(gdb wrote nothing)"
    }

    /// Blocks until it exits and reaps it with what it used (CPU time, peak
    /// RSS): for the benchmarks, which then never call `isRunning`.
    public func waitWithUsage() -> (status: Int32, usage: rusage) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        lock.withLock { waitStatus = status }
        return (status, usage)
    }

    /// Waits for its end (pidfd), for `timeout` seconds at most: true when
    /// it has ended (`waitUntilExit` then returns at once), false when it
    /// still runs. It is not reaped here.
    public func exits(within timeout: Double) async throws -> Bool {
        try await Wait.forExit(of: pid, timeout: timeout)
    }

    /// The exit status, or the signal's number when a signal ended it.
    public static func code(_ status: Int32) -> Int32 {
        killedBySignal(status) ? status & 0x7F : (status >> 8) & 0xFF
    }

    public static func killedBySignal(_ status: Int32) -> Bool {
        status & 0x7F != 0 && status & 0x7F != 0x7F
    }
}
