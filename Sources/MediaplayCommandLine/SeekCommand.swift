import ArgumentParser
import Foundation
import MediaControl
import MediaModel

public struct SeekCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "seek",
        abstract: "Move the background player's current item to a time, or by some seconds.",
        discussion: """
            A time is seconds (90) or MM:SS (1:30, also H:MM:SS); +N and -N move by N \
            seconds from where it stands. Works playing or paused. Prints the new state. \
            Exit status 64 for a time that cannot be read or nothing to seek in, 69 when \
            the background player is not running.

            Examples:
              mediaplay seek 1:30
              mediaplay seek +30
              mediaplay seek -10
            """
    )

    @OptionGroup var global: GlobalOptions

    // Captured as is, so that "-10" is a value, not an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("SECONDS, MM:SS, +N or -N.", valueName: "time"))
    var time: [String] = []

    /// "90", "1:30", "1:02:03" → seconds; nil for anything else.
    static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), value.isFinite, value >= 0, index == 0 || value < 60 else { return nil }
            total = total * 60 + value
        }
        return total <= 7 * 24 * 3600 ? total : nil
    }

    public func run() throws {
        try runReportingErrors {
            guard time.count == 1, let word = time.first else {
                throw CLIError("seek takes one time: SECONDS, MM:SS, +N or -N", exitCode: .usage)
            }
            var request = ControlRequest(id: nil, cmd: .seek)
            if word.hasPrefix("+") || word.hasPrefix("-") {
                guard let amount = Self.seconds(String(word.dropFirst())) else {
                    throw CLIError("cannot read \"\(word)\" as a time (like +30, -10 or -1:00)", exitCode: .usage)
                }
                request.by = word.hasPrefix("-") ? -amount : amount
            } else {
                guard let seconds = Self.seconds(word) else {
                    throw CLIError("cannot read \"\(word)\" as a time (like 90, 1:30 or 1:02:03)", exitCode: .usage)
                }
                request.seconds = seconds
            }
            let status = try BackgroundPlayer.call(request, as: ItemStatus.self, global)
            print(StatusText.line(status))
        }
    }
}
