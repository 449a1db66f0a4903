import ArgumentParser
import Foundation
import MediaControl
import MediaModel
import MediaTerminal
import MediaplayCommon

public struct SeekCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "seek",
        abstract: "Move the background player's current item to a time, or by some seconds.",
        discussion: """
            A time is seconds (90) or MM:SS (1:30, also H:MM:SS); +N and -N move by N \
            seconds from where it stands; N% goes to that share of its length. Works \
            playing or paused. Prints the new state. \
            Exit status 64 for a time that cannot be read or nothing to seek in, 69 when \
            the background player is not running.

            Examples:
              mediaplay seek 1:30
              mediaplay seek +30
              mediaplay seek -10
              mediaplay seek -- -10     the same (-- ends the options, as for sub-delay)
            """
    )

    @OptionGroup var global: GlobalOptions

    // Captured as is, so that "-10" is a value, not an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("SECONDS, MM:SS, +N, -N or N%.", valueName: "time"))
    var time: [String] = []

    public func run() throws {
        try runReportingErrors {
            let time = ControlLine.values(time)
            guard time.count == 1 else {
                throw CLIError("seek takes one time: SECONDS, MM:SS, +N, -N or N%", exitCode: .usage)
            }
            let status = try BackgroundPlayer.itemStatus(after: try ControlLine.command(["seek"] + time), global)
            StandardStream.line(StatusText.line(status))
        }
    }
}
