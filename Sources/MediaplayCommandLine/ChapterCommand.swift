import ArgumentParser
import MediaControl
import MediaModel
import MediaTerminal
import MediaplayCommon

/// `mediaplay chapter next|prev|N`: the background player's current item
/// to a chapter's start.
public struct ChapterCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "chapter",
        abstract: "Go to the next, previous or Nth chapter of what the background player plays.",
        discussion: """
            Chapters come from the file (mp4, m4b, mkv, ogg, ID3 CHAP) or, for a podcast, \
            from its feed: Podlove Simple Chapters in the feed, or a Podcasting 2.0 \
            chapters file (<podcast:chapters>, read when the episode first plays, and \
            preferred to the file's). 'prev' more than two seconds into a \
            chapter goes back to its start. status shows the chapter playing. Keys: PgUp \
            and PgDn, as in mpv. Exit status 66 past the last chapter, 69 when the \
            background player is not running.

            Examples:
              mediaplay chapter next
              mediaplay chapter 3
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("next, prev or a chapter's number.", valueName: "next|prev|n"))
    var step: String

    public func run() throws {
        try runReportingErrors {
            let status = try BackgroundPlayer.itemStatus(after: try ControlLine.command("chapter", step), global)
            StandardStream.line(StatusText.line(status))
        }
    }
}
