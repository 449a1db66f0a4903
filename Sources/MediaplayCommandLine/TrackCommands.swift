import ArgumentParser
import MediaControl
import MediaModel
import MediaTerminal
import MediaplayCommon

/// `mediaplay subtitle next|on|off|toggle|N`: the subtitles of what the
/// background player plays.
public struct SubtitleCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "subtitle",
        abstract: "Show, hide or choose the subtitles of what the background player plays.",
        discussion: """
            Subtitles come from the file (SubRip, mov_text, ASS, WebVTT, PGS, DVB, VobSub), \
            from files beside it (movie.srt, movie.en.srt, .vtt, .ass) and from a feed's \
            subtitles links. next steps through the tracks, then none; toggle shows or \
            hides them. status shows the line showing and the tracks. Keys: v toggles, \
            j steps, as in mpv. Exit status 66 for a track the item does not have.

            Examples:
              mediaplay subtitle next
              mediaplay subtitle 2
              mediaplay subtitle off
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("next, on, off, toggle or a track's number.", valueName: "next|on|off|toggle|n"))
    var step: String

    public func run() throws {
        try runReportingErrors {
            try TrackCommandLine.send("subtitle", step, global)
        }
    }
}

/// `mediaplay audio-track next|N`: the audio track of what the background player plays.
public struct AudioTrackCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "audio-track",
        abstract: "Choose the audio track (a language, a commentary) of what the background player plays.",
        discussion: """
            The sound goes on from where it stands in the new track. status names the \
            tracks and their languages. Key: # as in mpv. Exit status 66 for a track the \
            item does not have.

            Examples:
              mediaplay audio-track next
              mediaplay audio-track 2
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("next or a track's number.", valueName: "next|n"))
    var step: String

    public func run() throws {
        try runReportingErrors {
            try TrackCommandLine.send("audio-track", step, global)
        }
    }
}

/// `mediaplay sub-delay ±S`: subtitles later or earlier.
public struct SubtitleDelayCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "sub-delay",
        abstract: "Show the subtitles of what the background player plays later or earlier.",
        discussion: """
            +S shows them S seconds later, -S earlier, S sets the delay (0 puts them \
            back). It carries on to the next items. Keys: z and Z by 0.1 s, as in mpv.

            Examples:
              mediaplay sub-delay +0.5
              mediaplay sub-delay -- -1.2
              mediaplay sub-delay 0
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("+S, -S or S seconds.", valueName: "seconds"))
    var delay: String

    public func run() throws {
        try runReportingErrors {
            try TrackCommandLine.send("sub-delay", delay, global)
        }
    }
}

/// What the three track commands share: the command line to the background
/// player, then the item's line and its tracks.
enum TrackCommandLine {
    static func send(_ name: String, _ argument: String, _ global: GlobalOptions) throws(CLIError) {
        let status = try BackgroundPlayer.itemStatus(after: try ControlLine.command(name, argument), global)
        StandardStream.line(StatusText.line(status))
        if let tracks = status.tracks, !tracks.line.isEmpty { StandardStream.line(tracks.line) }
    }
}
