#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import MediaModel

/// What an output stream is connected to, and so how to write to it
/// (colour and animation only on a real terminal).
public struct TerminalInfo: Sendable, Equatable {
    /// The stream is a terminal (not a pipe or file).
    public var isTerminal: Bool
    /// Columns available, if known: the terminal's width, else `$COLUMNS`.
    public var width: Int?
    /// Colour allowed: a terminal, `TERM` not dumb, `NO_COLOR` unset.
    public var colors: Bool
    /// Animation (spinners, redrawn lines) allowed: also requires `CI` unset.
    public var animates: Bool

    public init(isTerminal: Bool, width: Int?, colors: Bool, animates: Bool) {
        self.isTerminal = isTerminal
        self.width = width
        self.colors = colors
        self.animates = animates
    }

    /// Looks at file descriptor `fd` and the environment.
    public static func detect(fd: Int32, environment: [String: String]) -> TerminalInfo {
        detect(fd: fd, isTerminal: isatty(fd) == 1, environment: environment)
    }

    /// The running command's standard output (`CommandContext.current`):
    /// a captured stream is no terminal.
    public static func standardOutput(_ context: CommandContext = .current) -> TerminalInfo {
        detect(context.output, context)
    }

    /// The running command's standard error.
    public static func standardError(_ context: CommandContext = .current) -> TerminalInfo {
        detect(context.error, context)
    }

    private static func detect(_ sink: CommandContext.Sink, _ context: CommandContext) -> TerminalInfo {
        switch sink {
        case let .descriptor(fd): detect(fd: fd, environment: context.environment)
        case .capture: detect(fd: -1, isTerminal: false, environment: context.environment)
        }
    }

    private static func detect(fd: Int32, isTerminal tty: Bool, environment: [String: String]) -> TerminalInfo {
        let term = environment["TERM"] ?? ""
        let dumb = term == "dumb" || term.isEmpty
        var width: Int?
        if tty {
            var size = winsize()
            if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
                width = Int(size.ws_col)
            }
        }
        if width == nil, let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            width = columns
        }
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        return TerminalInfo(
            isTerminal: tty,
            width: width,
            colors: tty && !dumb && !noColor,
            animates: tty && !dumb && environment["CI"] == nil
        )
    }
}

/// ANSI styles, applied only when colour is on.
public enum Style: Sendable {
    case bold, dim, red, green, yellow, blue, cyan

    var code: String {
        switch self {
        case .bold: return "1"
        case .dim: return "2"
        case .red: return "31"
        case .green: return "32"
        case .yellow: return "33"
        case .blue: return "34"
        case .cyan: return "36"
        }
    }

    public func apply(_ text: String, enabled: Bool) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
