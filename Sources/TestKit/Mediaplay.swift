import Foundation
import Glibc

/// The result of running the built `mediaplay` binary.
public struct RunResult: Sendable {
    /// The exit status, or the signal's number when a signal ended it.
    public var status: Int32
    public var killedBySignal: Bool
    public var stdout: String
    public var stderr: String

    public init(status: Int32, killedBySignal: Bool = false, stdout: String, stderr: String) {
        self.status = status
        self.killedBySignal = killedBySignal
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs the built `mediaplay` executable, the way a user or script would.
public enum Mediaplay {
    /// `.build/<triple>/debug/mediaplay`, beside the test bundle.
    public static var executable: String {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = (testBinary as NSString).deletingLastPathComponent
        // The xctest bundle may be a folder on some platforms.
        if folder.hasSuffix(".xctest") { folder = (folder as NSString).deletingLastPathComponent }
        return folder + "/mediaplay"
    }

    /// Every program a test starts measures no loudness in the background
    /// unless the test asks: no stray process competes with the timed suites.
    public static let quietBackground = ["MEDIAPLAY_MEASURE_LOUDNESS": "0"]

    /// Runs mediaplay with `arguments`, a clean environment plus `environment`,
    /// and stdin from /dev/null; stdout and stderr go through files, so a
    /// chatty process can never block on a full pipe.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> RunResult {
        try await start(arguments, environment: environment).wait()
    }

    /// Starts mediaplay without waiting; `wait()` collects the result.
    public static func start(
        _ arguments: [String], environment: [String: String] = [:], executable: String = Mediaplay.executable
    ) throws -> RunningProcess {
        let scratch = try TemporaryDirectory()
        let env = Self.environment(home: scratch.path, environment)
        let child = try ChildProcess(
            executable, arguments, environment: env,
            stdin: "/dev/null", stdout: scratch.path + "/stdout", stderr: scratch.path + "/stderr"
        )
        return RunningProcess(child: child, scratch: scratch)
    }
}

extension Mediaplay {
    /// The environment a test's run of mediaplay has: a clean one, with
    /// `home` as HOME and its XDG folders, plus `environment`. (The same
    /// for a process and for a run in this process: `runInProcess`.)
    public static func environment(home: String, _ environment: [String: String]) -> [String: String] {
        var env: [String: String] = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": home,
            "XDG_CACHE_HOME": home + "/cache",
            "XDG_RUNTIME_DIR": home + "/run",
            "XDG_STATE_HOME": home + "/state",
            "LANG": "C.UTF-8",
        ]
        env.merge(Mediaplay.quietBackground) { $1 }
        env.merge(environment) { $1 }
        return env
    }
}

/// A mediaplay process started by a test.
public final class RunningProcess: Sendable {
    let child: ChildProcess
    let scratch: TemporaryDirectory

    init(child: ChildProcess, scratch: TemporaryDirectory) {
        self.child = child
        self.scratch = scratch
    }

    public var pid: Int32 { child.pid }
    public var isRunning: Bool { child.isRunning }

    /// What it has written to stderr so far.
    public var stderrSoFar: String { (try? String(contentsOfFile: scratch.path + "/stderr", encoding: .utf8)) ?? "" }

    /// What it has written to stdout so far.
    public var stdoutSoFar: String { (try? String(contentsOfFile: scratch.path + "/stdout", encoding: .utf8)) ?? "" }

    /// Waits until what it has written to stderr holds `text` (looked at
    /// each time it writes: inotify); false when it has not within
    /// `timeout` seconds, a bound for failures.
    @discardableResult
    public func waitForStderr(containing text: String, timeout: Double = 30) async throws -> Bool {
        try await Wait.until(changesAt: scratch.path, timeout: timeout) { stderrSoFar.contains(text) }
    }

    /// Waits until what it has written to stdout satisfies `condition`
    /// (looked at each time it writes); false after `timeout` seconds.
    @discardableResult
    public func waitForStdout(timeout: Double = 30, _ condition: (String) -> Bool) async throws -> Bool {
        try await Wait.until(changesAt: scratch.path, timeout: timeout) { condition(stdoutSoFar) }
    }

    /// Waits for its end (pidfd), for `timeout` seconds at most: true when
    /// it has ended (`wait()` then returns at once), false when it still runs.
    public func exits(within timeout: Double) async throws -> Bool {
        try await child.exits(within: timeout)
    }

    public func kill(_ signal: Int32) {
        _ = Glibc.kill(child.pid, signal)
    }

    /// Waits for the exit on a thread of its own (see `offPool`).
    public func wait() async throws -> RunResult {
        let child = self.child
        let status = await offPool { child.waitUntilExit() }
        return RunResult(
            status: ChildProcess.code(status),
            killedBySignal: ChildProcess.killedBySignal(status),
            stdout: try String(contentsOfFile: scratch.path + "/stdout", encoding: .utf8),
            stderr: try String(contentsOfFile: scratch.path + "/stderr", encoding: .utf8) + (child.hangReport ?? "")
        )
    }
}

/// A fresh folder under the system's temporary directory, removed on deinit.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        var template = Array(((NSTemporaryDirectory() as NSString).appendingPathComponent("mediaplay-test-XXXXXX")).utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = (String(cString: made) as NSString).standardizingPath
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` inside the folder and returns the full path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let full = path + "/" + name
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        return full
    }

    /// Writes `count` bytes to `name` and returns the full path.
    @discardableResult
    public func write(_ name: String, byteCount count: Int) throws -> String {
        let full = path + "/" + name
        try Data(repeating: 0x5A, count: count).write(to: URL(fileURLWithPath: full))
        return full
    }
}
