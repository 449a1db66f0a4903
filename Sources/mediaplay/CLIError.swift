import ArgumentParser
import Foundation

/// Exit codes from sysexits(3) (DESIGN.md §9).
enum SysExit: Int32 {
    case ok = 0
    case failure = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case ioError = 74
}

/// An error the user sees as one line on stderr, with the exit code it implies.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var exitCode: SysExit

    init(_ message: String, exitCode: SysExit) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}

/// Prints a CLIError as `mediaplay: message` and exits with its code; other
/// errors go to ArgumentParser, which knows its own (usage → 64).
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as CLIError {
        FileHandle.standardError.write(Data("mediaplay: \(error.message)\n".utf8))
        throw ExitCode(error.exitCode.rawValue)
    }
}

/// The async twin of `runReportingErrors`.
func runReportingErrorsAsync(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CLIError {
        FileHandle.standardError.write(Data("mediaplay: \(error.message)\n".utf8))
        throw ExitCode(error.exitCode.rawValue)
    }
}
