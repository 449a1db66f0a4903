import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What one run of a command reads and writes outside itself: its standard
/// streams, its environment, its working folder. A program binds the real
/// ones (`CommandContext.process`, the default); a test runs a command in
/// its own process with streams it captures and an environment of its own
/// (`@TaskLocal`, so runs side by side never see each other's: no fd 1
/// redirected, no setenv, no chdir). Code that hands work to a thread of
/// its own carries the context there (`CommandContext.current.bind`).
public struct CommandContext: Sendable {
    /// Where a stream's bytes go.
    public enum Sink: Sendable {
        /// A descriptor of this process.
        case descriptor(Int32)
        /// Kept for the caller (`Capture.text`).
        case capture(Capture)
    }

    /// A stream's bytes kept in memory, in order of writing.
    public final class Capture: Sendable {
        private let bytes = Mutex<[UInt8]>([])

        public init() {}

        public func append(_ more: some Collection<UInt8>) {
            bytes.withLock { $0.append(contentsOf: more) }
        }

        public var data: [UInt8] { bytes.withLock { $0 } }
        public var text: String { String(decoding: data, as: UTF8.self) }
    }

    /// Where the standard input comes from.
    public enum Source: Sendable {
        case descriptor(Int32)
        case bytes([UInt8])
    }

    /// The environment: libc's (read one variable at a time: a static
    /// program that builds the whole dictionary pays a scan of its
    /// conformances) or one given whole.
    public enum Environment: Sendable {
        case process
        case given([String: String])
    }

    public var output: Sink
    public var error: Sink
    public var input: Source
    public var environmentSource: Environment
    /// Relative paths start here; nil: the process's working folder.
    public var workingDirectory: String?
    /// The program a user ran, which a command starts again (the
    /// background player: `mediaplay daemon`); nil: this process's own.
    public var program: String?

    public init(
        output: Sink = .descriptor(STDOUT_FILENO), error: Sink = .descriptor(STDERR_FILENO), input: Source = .descriptor(STDIN_FILENO),
        environment: Environment = .process, workingDirectory: String? = nil, program: String? = nil
    ) {
        self.program = program
        self.output = output
        self.error = error
        self.input = input
        self.environmentSource = environment
        self.workingDirectory = workingDirectory
    }

    /// The process's own streams, environment and folder.
    public static let process = CommandContext()

    /// The context of the command running on this task.
    @TaskLocal public static var current = CommandContext.process

    /// One variable of the environment.
    public func variable(_ name: String) -> String? {
        switch environmentSource {
        case .process: getenv(name).map { String(cString: $0) }
        case let .given(values): values[name]
        }
    }

    /// The whole environment.
    public var environment: [String: String] {
        switch environmentSource {
        case .process: ProcessInfo.processInfo.environment
        case let .given(values): values
        }
    }

    /// This context with `name` set to `value` in its environment, for the
    /// programs it starts. The process's own environment is changed in
    /// place (a program runs one command); a given one is copied.
    public func setting(_ name: String, to value: String) -> CommandContext {
        switch environmentSource {
        case .process:
            setenv(name, value, 1)
            return self
        case var .given(values):
            values[name] = value
            var changed = self
            changed.environmentSource = .given(values)
            return changed
        }
    }

    /// Whether the stream is a terminal: never for a captured one.
    public func isTerminal(_ sink: Sink) -> Bool {
        if case let .descriptor(descriptor) = sink { return isatty(descriptor) == 1 }
        return false
    }

    /// Whether the standard input is a terminal: never for given bytes.
    public var inputIsTerminal: Bool {
        if case let .descriptor(descriptor) = input { return isatty(descriptor) == 1 }
        return false
    }

    /// The descriptor behind `sink`, when it is one (for ioctl's window size).
    public static func descriptor(_ sink: Sink) -> Int32? {
        if case let .descriptor(descriptor) = sink { return descriptor }
        return nil
    }

    /// The whole standard input.
    public func readInput() -> [UInt8] {
        switch input {
        case let .bytes(bytes): return bytes
        case let .descriptor(descriptor):
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return all }
                all.append(contentsOf: buffer[..<count])
            }
        }
    }

    /// `body` run with this context, for a thread or queue the task-local
    /// context does not reach.
    public func bind<T>(_ body: () throws -> T) rethrows -> T {
        try CommandContext.$current.withValue(self, operation: body)
    }
}

extension CommandContext {
    /// One line of the standard input, without its newline; nil at its end.
    /// (Given bytes answer their first line.)
    public func readLine() -> String? {
        switch input {
        case .descriptor: return Swift.readLine()
        case let .bytes(bytes):
            guard !bytes.isEmpty else { return nil }
            return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
        }
    }
}
