import Foundation
import MediaModel
import MediaplayCore
import TestKit

// A command run the way a user runs it, inside the test's own process:
// MediaplayProgram.run with the streams captured and an environment of its
// own (CommandContext, a task-local value: runs side by side never see each
// other's streams, HOME or XDG folders). The result has the process
// runner's shape, so a test switches with one call. What only a process
// shows stays with `Mediaplay.run`: an exit after a signal, the exec from
// mediaplay to mediaplay-core, the background player's own start and the
// quick toggle's timing, a real terminal.

extension Mediaplay {
    /// `mediaplay ARGUMENTS` run in this process, with the environment
    /// `Mediaplay.run` gives a process (a fresh HOME with its XDG folders,
    /// plus `environment`) and `stdin` as its standard input.
    public static func runInProcess(_ arguments: [String], environment: [String: String] = [:], stdin: String = "") async throws -> RunResult {
        let home = try TemporaryDirectory()
        return await InProcess.run(arguments, environment: Self.environment(home: home.path, environment), stdin: stdin)
    }
}

extension UserHome {
    /// `run`, in this process: this home's environment, the rest as a
    /// process would have it.
    public func runInProcess(_ arguments: String...) async throws -> RunResult {
        try await Mediaplay.runInProcess(arguments, environment: environment)
    }
}

/// Runs one command on a thread of its own (`CommandThread`): a command
/// blocks as a program's main thread may (files, SQLite, a socket), and
/// must never block the test's cooperative pool.
public enum InProcess {
    public static func run(_ arguments: [String], environment: [String: String], stdin: String = "") async -> RunResult {
        let output = CommandContext.Capture()
        let error = CommandContext.Capture()
        let context = CommandContext(
            output: .capture(output), error: .capture(error), input: .bytes(Array(stdin.utf8)), environment: .given(environment),
            program: Mediaplay.executable
        )
        let thread = CommandThread()
        defer { thread.finish() }
        let status = await Task(executorPreference: thread) {
            await CommandContext.$current.withValue(context) {
                await MediaplayProgram.run(arguments)
            }
        }.value
        return RunResult(status: status, stdout: output.text, stderr: error.text)
    }
}

/// A task executor with one thread of its own, for one command's run: what
/// the command does synchronously (and blocks on) happens there.
final class CommandThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false
    private var exited = false

    init() {
        let thread = Thread { [self] in work() }
        thread.name = "mediaplay.in-process"
        // A program's main thread's stack.
        thread.stackSize = 8 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = condition.withLock {
            guard !exited else { return false }
            jobs.append(job)
            condition.signal()
            return true
        }
        // A job that comes after the run ended (a task it left behind):
        // a thread of its own, as the run's is gone.
        if !queued {
            let executor = asUnownedTaskExecutor()
            Thread { job.runSynchronously(on: executor) }.start()
        }
    }

    /// Lets the thread end once its jobs are done.
    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    private func work() {
        while true {
            let job: UnownedJob? = condition.withLock {
                while jobs.isEmpty && !finished { condition.wait() }
                if jobs.isEmpty { exited = true }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let job else { return }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

extension ToneFeedHome {
    /// `status()`, in this process: `mediaplay status --json`, read.
    public func statusInProcess() async throws -> [String: Any]? {
        let result = try await runInProcess("status", "--json")
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
    }
}
