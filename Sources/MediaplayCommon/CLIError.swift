import ArgumentParser
import Foundation
import MediaModel
import MediaTerminal

/// Exit codes from sysexits(3).
public enum SysExit: Int32, Sendable {
    case ok = 0
    case failure = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case ioError = 74
    /// Not allowed: a mediaplay:// link naming a feed that is not the user's.
    case noPermission = 77
    /// A mistake in config.toml.
    case config = 78
}

/// An error the user sees as one line on stderr, with the exit code it implies.
public struct CLIError: Error, CustomStringConvertible {
    public var message: String
    public var exitCode: SysExit

    public init(_ message: String, exitCode: SysExit) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}

/// Prints a CLIError as `mediaplay: message` and exits with its code; other
/// errors go to ArgumentParser, which knows its own (usage → 64).
public func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as CLIError {
        error.report()
        throw ExitCode(error.exitCode.rawValue)
    }
}

/// The async twin of `runReportingErrors`.
public func runReportingErrorsAsync(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CLIError {
        error.report()
        throw ExitCode(error.exitCode.rawValue)
    }
}

extension CLIError {
    /// `mediaplay: message` on stderr, on one line: a message quotes titles,
    /// URLs and member names from outside, so it is escaped and bounded,
    /// and a URL's password is not shown.
    public func report() {
        StandardStream.error("mediaplay: \(DisplayWidth.escaped(message.redactingUserinfo))\n")
    }
}
