import ArgumentParser
import MediaControl
import MediaModel
import MediaplayCommon

/// `mediaplay loudness on|tags|measured|off|cycle`: where the gain that
/// evens loudness between items comes from.
public struct LoudnessCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "loudness",
        abstract: "Show or set how the background player evens loudness between items.",
        discussion: """
            on (the default): an item's ReplayGain tags where it has them, else its \
            loudness as mediaplay measured it (once, in the background, when the file \
            was first listed, played or downloaded), brought to -18 LUFS; tags: only \
            ReplayGain tags; measured: only the measurement; off: every file at the \
            level it was mastered at. cycle goes on, tags, measured, off (G in play, \
            the window and browse). Kept for the next start like the volume; status \
            shows the gain applied. Without a value, prints the settings.

            Examples:
              mediaplay loudness off
              mediaplay loudness cycle
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the settings as JSON (volume, muted, speed, loudness, replayGain).")
    var json = false

    @Argument(help: ArgumentHelp("on, tags, measured, off or cycle.", valueName: "mode"))
    var mode: String?

    public func run() throws {
        try runReportingErrors {
            try AudioSettingsText.send(try mode.map { mode throws(CLIError) in try ControlLine.command("loudness", mode) }, query: .volume, global: global, json: json)
        }
    }
}
