import ArgumentParser
import MediaControl
import MediaModel
import MediaTerminal
import MediaplayCommon

/// `mediaplay sleep 30m|1h|end|off`: the background player's sleep timer.
public struct SleepCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "sleep",
        abstract: "Pause the background player after a while, fading out (a sleep timer).",
        discussion: """
            After the time given of playback (30m, 1h, 1h30m, 90s), or at the end of \
            the current item (end), the sound fades out over its last ten seconds and \
            the player pauses, the position kept. 'off' cancels it; without a value, \
            prints the time left (status shows it too). The timer counts playback: it \
            waits while playback is paused, and goes on into the next item. Exit status \
            69 when the background player is not running.

            Examples:
              mediaplay sleep 30m
              mediaplay sleep end
              mediaplay sleep off
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the timer as JSON (remaining, atEnd).")
    var json = false

    @Argument(help: ArgumentHelp("A time (30m, 1h, 90s), end, off or cycle.", valueName: "time|end|off"))
    var time: String?

    public func run() throws {
        try runReportingErrors {
            let status: SleepStatus
            if let time {
                status = try BackgroundPlayer.perform(try ControlLine.command("sleep", time), global).sleep ?? .off
            } else {
                status = try BackgroundPlayer.call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self, global).sleep ?? .off
            }
            StandardStream.line(json ? ModelJSON.text(status) : status.line)
        }
    }
}
