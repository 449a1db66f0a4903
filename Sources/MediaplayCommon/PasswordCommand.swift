import CLinux
import Foundation
import Glibc
import MediaModel

/// A password kept outside config.toml (`password-command`, for a server
/// feed and for `[mpd]`): the one way such a command is run, bounded in
/// time, so a command that hangs is one line, never a hung start.
public enum PasswordCommand {
    /// Seconds a password command may take to print its line.
    public static let timeout: Double = 10

    /// The first line `command` prints, run by /bin/sh in a process group
    /// of its own: read up to its first newline (a child it leaves behind
    /// holding the output costs nothing), given up after
    /// `timeout`; the group is killed when it is done.
    public static func firstLine(of command: String, section: String, clock: any MediaClock = SystemClock.shared) throws(CLIError) -> String {
        let cannot = CLIError("[\(section)] password-command: cannot run it (/bin/sh)", exitCode: .config)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw cannot }
        // Close-on-exec (the child's stdout is a dup2, which keeps it open):
        // another program this process starts does not hold the pipe open.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        // Nothing else of ours: a descriptor another thread has open (a
        // pipe whose reader waits for its end) would live as long as it.
        mp_spawn_close_from(&actions, 3)
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        // A process group of its own (led by the shell), killed at the end.
        let spawned = SpawnAttributes.ownGroup.with { posix_spawn(&pid, "/bin/sh", &actions, &$0, arguments + [nil], Glibc.environ) }
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw cannot
        }
        let state = CommandState()
        let readEnd = fds[0], shell = pid
        // A read and a wait block: threads of their own.
        Thread.detachNewThread {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while bytes.count < 4096, !bytes.contains(0x0A) {
                let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            close(readEnd)
            state.update { $0.output = bytes }
        }
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(shell, &status, 0) < 0, errno == EINTR {}
            state.update { $0.exitStatus = status }
        }
        let finished = state.wait(clock: clock, until: clock.now + timeout) { state in
            // Its line once the shell has ended (a child it left may hold the output).
            state.exitStatus != nil && state.output != nil
        }
        kill(-shell, SIGKILL)
        guard finished else {
            throw CLIError("[\(section)] password-command printed no password within \(Int(timeout)) s; check the command in config.toml", exitCode: .config)
        }
        let (status, data) = state.update { ($0.exitStatus ?? -1, $0.output ?? []) }
        let line = String(decoding: data.prefix(4096), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        // Exited normally with 0 (the wait status's high byte, nothing signalled).
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
        guard exitCode == 0, !line.isEmpty else {
            throw CLIError("[\(section)] password-command printed no password (exit \(exitCode)); check the command in config.toml", exitCode: .config)
        }
        return line
    }

    /// What a password command did so far, under a condition.
    private final class CommandState: @unchecked Sendable {
        struct Values {
            var exitStatus: Int32?
            var output: [UInt8]?
        }

        private let condition = NSCondition()
        private var values = Values()

        @discardableResult
        func update<T>(_ change: (inout Values) -> T) -> T {
            condition.lock()
            defer {
                condition.broadcast()
                condition.unlock()
            }
            return change(&values)
        }

        /// Whether `done` held before `deadline`.
        func wait(clock: any MediaClock, until deadline: Double, for done: (Values) -> Bool) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while !done(values) {
                if !clock.wait(on: condition, until: deadline) { return done(values) }
            }
            return true
        }
    }
}
