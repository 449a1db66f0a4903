import Foundation
import Glibc

/// A program running in a pseudo-terminal of a given size, driven like a
/// user drives it: keys in, the screen's text out. tmux provides the
/// terminal (each session on a server of its own, so tests do not meet).
public final class TerminalSession: @unchecked Sendable {
    public let columns: Int
    public let rows: Int
    private let socket: String
    private let folder: TemporaryDirectory
    /// Where the shell around the program records its exit status and the
    /// terminal's settings after it.
    public let afterPath: String

    /// Runs `arguments` (an executable and its arguments) in a clean
    /// environment plus `environment`, at `columns` × `rows`. When the
    /// program ends, the shell writes its status and `stty -a` to `afterPath`
    /// and stays, so the screen can be inspected.
    public init(columns: Int, rows: Int, _ arguments: [String], environment: [String: String]) async throws {
        self.columns = columns
        self.rows = rows
        folder = try TemporaryDirectory()
        socket = folder.path + "/tmux.sock"
        afterPath = folder.path + "/after"
        var env = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": folder.path,
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
        ]
        env.merge(Mediaplay.quietBackground) { $1 }
        env.merge(environment) { $1 }
        let assignments = env.sorted { $0.key < $1.key }.map { Self.quote("\($0.key)=\($0.value)") }.joined(separator: " ")
        let command = arguments.map(Self.quote).joined(separator: " ")
        let after = Self.quote(afterPath)
        let script = "env -i \(assignments) \(command); echo \"status $?\" > \(after).tmp; stty -a >> \(after).tmp; mv \(after).tmp \(after); exec sleep 600"
        try await tmux(["-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y", String(rows), "-s", "main", "sh", "-c", script])
        // Everything the program writes to the terminal is copied to a file
        // as well: its growth is the event a wait for the screen wakes on.
        try FileManager.default.createDirectory(atPath: folder.path + "/pane", withIntermediateDirectories: true)
        try await tmux(["pipe-pane", "-t", "main", "cat >> " + Self.quote(outputPath)])
    }

    /// Where the pane's output is copied (tmux's pipe-pane), in a folder of
    /// its own (tmux's replies are written beside it). tmux parses what the
    /// program wrote into the screen before it hands it to the pipe, so
    /// once the file has grown the screen shows what grew it.
    private var outputPath: String { folder.path + "/pane/output" }

    /// The tmux server ended on a thread of its own: a test's deinit runs
    /// on the cooperative pool, which a wait would hold.
    deinit {
        let socket = self.socket
        let folder = self.folder
        Thread { _ = try? Self.tmuxBlocking(socket: socket, folder: folder.path, ["kill-server"]) }.start()
    }

    public static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs a tmux command on a thread of its own (see `offPool`).
    @discardableResult
    private func tmux(_ arguments: [String]) async throws -> String {
        let socket = self.socket
        let folder = self.folder.path
        return try await offPool { try Self.tmuxBlocking(socket: socket, folder: folder, arguments) }
    }

    /// Runs a tmux command and waits. Output goes through a file, not a
    /// pipe: the tmux server that the first command starts keeps its
    /// inherited descriptors, and a reader waiting for a pipe's end would
    /// wait forever. `ChildProcess` gives it nothing else of ours, so the
    /// server (alive for the whole session) holds no descriptor another
    /// test waits on. Calls are serialised by the session's single user.
    private static func tmuxBlocking(socket: String, folder: String, _ arguments: [String]) throws -> String {
        let output = folder + "/tmux.out"
        let errors = folder + "/tmux.err"
        let tmux = try ChildProcess(
            "/usr/bin/tmux", ["-S", socket] + arguments, environment: ProcessInfo.processInfo.environment,
            stdin: "/dev/null", stdout: output, stderr: errors
        )
        guard tmux.waitUntilExit() == 0 else {
            throw TerminalSessionError(message: "tmux \(arguments.first ?? ""): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// The screen's text, one string per row (trailing spaces kept off);
    /// with `colors`, the rows' colour sequences too (pictures of one
    /// character in many colours differ only there).
    public func screen(colors: Bool = false) async -> [String] {
        let text = (try? await tmux(["capture-pane", "-p"] + (colors ? ["-e"] : []) + ["-t", "main"])) ?? ""
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Sends keys by tmux's names ("Space", "Right", "Escape", "C-c") or as text.
    public func send(_ keys: String...) async {
        _ = try? await tmux(["send-keys", "-t", "main"] + keys)
    }

    /// Waits until the screen satisfies `predicate`: looked at now, and
    /// again each time the program writes to the terminal (see
    /// `outputPath`); the last screen either way. `timeout` bounds a
    /// failure, and `colors` captures the colour sequences too.
    @discardableResult
    public func waitForScreen(timeout: Double = 30, colors: Bool = false, _ predicate: ([String]) -> Bool) async -> (matched: Bool, screen: [String]) {
        let output = outputPath
        var lines: [String] = []
        // The size before each look: output after it makes the next look.
        var seen: Int?
        let matched = (try? await Wait.until(changesAt: folder.path + "/pane", timeout: timeout) {
            let size = Wait.size(of: output)
            if size == seen { return false }
            seen = size
            lines = await screen(colors: colors)
            return predicate(lines)
        }) ?? false
        if !matched { lines = await screen(colors: colors) }
        return (matched || predicate(lines), lines)
    }

    /// Whether the screen comes to satisfy `predicate` within `timeout`.
    public func shows(timeout: Double = 30, _ predicate: ([String]) -> Bool) async -> Bool {
        await waitForScreen(timeout: timeout, predicate).matched
    }

    /// Whether the alternate screen is on and whether the cursor shows.
    public func modes() async -> (alternateScreen: Bool, cursorVisible: Bool) {
        let flags = ((try? await tmux(["display-message", "-p", "-t", "main", "#{alternate_on} #{cursor_flag}"])) ?? "").split(separator: " ")
        return (flags.first == "1", flags.dropFirst().first?.hasPrefix("1") == true)
    }

    /// After the program ended: its exit status and `stty -a`'s report, or
    /// nil if it has not ended within `timeout`. The shell writes the
    /// report aside and renames it into place: its appearance is the event.
    public func waitForExit(timeout: Double = 30) async -> (status: Int32, stty: String)? {
        var ended: (status: Int32, stty: String)?
        _ = try? await Wait.until(changesAt: folder.path, timeout: timeout) {
            if let text = try? String(contentsOfFile: afterPath, encoding: .utf8), let first = text.split(separator: "\n").first,
               let status = Int32(first.dropFirst("status ".count)) {
                ended = (status, text)
            }
            return ended != nil
        }
        return ended
    }

    /// The program's process id (the child of the shell in the terminal).
    public func programPID() async -> Int32? {
        guard let shell = Int32(((try? await tmux(["display-message", "-p", "-t", "main", "#{pane_pid}"])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)),
              let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        else { return nil }
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }
}

public struct TerminalSessionError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
