import ArgumentParser
import Foundation
import MediaControl
import MediaModel
import MediaTerminal
import MediaplayCommon

// The feed as a playlist, in the background player: next and previous, and
// the modes (autoplay, repeat, shuffle), kept across its restarts.

public struct NextCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Play the next audio or video item of the feed in the background player.",
        discussion: "In the feed's order, or the shuffled one; after the last, the first with 'repeat all'. Exit status 66 at the end of the playlist, 69 when the background player is not running."
    )

    @OptionGroup var global: GlobalOptions

    public func run() throws {
        try runReportingErrors { try PlaylistText.step(.next, global: global) }
    }
}

public struct PrevCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "prev",
        abstract: "Play the previous audio or video item of the feed in the background player.",
        discussion: "Exit status 66 at the start of the playlist, 69 when the background player is not running."
    )

    @OptionGroup var global: GlobalOptions

    public func run() throws {
        try runReportingErrors { try PlaylistText.step(.previous, global: global) }
    }
}

public struct RepeatCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "repeat",
        abstract: "Repeat nothing, the item, or the whole feed in the background player.",
        discussion: "Prints the playlist's modes. Without a value, prints them only. While no background player runs, the kept modes change (its next start's)."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the modes as JSON (autoplay, repeat, shuffle).")
    var json = false

    @Argument(help: ArgumentHelp("off, one or all.", valueName: "off|one|all"))
    var mode: String?

    public func run() throws {
        try runReportingErrors {
            try PlaylistText.send(try mode.map { mode throws(CLIError) in try ControlLine.command("repeat", mode) }, global: global, json: json)
        }
    }
}

public struct ShuffleCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "shuffle",
        abstract: "Play the feed in a random order (every item once before any repeats).",
        discussion: "The order is drawn when shuffle is turned on and kept until it is turned off. Prints the playlist's modes."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the modes as JSON (autoplay, repeat, shuffle).")
    var json = false

    @Argument(help: ArgumentHelp("on or off.", valueName: "on|off"))
    var state: String?

    public func run() throws {
        try runReportingErrors {
            try PlaylistText.send(try state.map { state throws(CLIError) in try ControlLine.command("shuffle", state) }, global: global, json: json)
        }
    }
}

public struct AutoplayCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "autoplay",
        abstract: "Whether the next item plays when one ends (on by default in the background player).",
        discussion: "Images, invalid and text-only items are skipped. Prints the playlist's modes."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the modes as JSON (autoplay, repeat, shuffle).")
    var json = false

    @Argument(help: ArgumentHelp("on or off.", valueName: "on|off"))
    var state: String?

    public func run() throws {
        try runReportingErrors {
            try PlaylistText.send(try state.map { state throws(CLIError) in try ControlLine.command("autoplay", state) }, global: global, json: json)
        }
    }
}

/// A client command's words as the one vocabulary's command (`volume -5`,
/// `repeat cycle`): what a key binding or a script says the same way.
public enum ControlLine {
    public static func command(_ words: String...) throws(CLIError) -> PlayerCommand {
        try command(words)
    }

    /// The values a command captured as they were typed (`seek -10`), a
    /// `--` before them left out (`seek -- -10`, as `sub-delay -- -1.2` takes it).
    public static func values(_ words: [String]) -> [String] {
        words.first == "--" ? Array(words.dropFirst()) : words
    }

    public static func command(_ words: [String]) throws(CLIError) -> PlayerCommand {
        do {
            return try PlayerCommand(parsing: words.joined(separator: " "))
        } catch {
            throw CLIError(error.message, exitCode: .usage)
        }
    }
}

enum PlaylistText {
    static func step(_ command: PlayerCommand, global: GlobalOptions) throws(CLIError) {
        StandardStream.line(StatusText.line(try BackgroundPlayer.itemStatus(after: command, global)))
    }

    /// `command` (nil: only asks). With no background player running, the
    /// kept modes change (the next start's) and the reply says so.
    static func send(_ command: PlayerCommand?, global: GlobalOptions, json: Bool) throws(CLIError) {
        guard let client = try BackgroundPlayer.connect(global, start: false) else {
            let store = try KeptSettings.open(global)
            var mode = store.playlistMode() ?? ConfiguredDefaults.values.playlist
            if let command, let changed = mode.applying(command) {
                mode = changed
                try KeptSettings.save(changed, in: store)
            }
            StandardStream.line(json ? ModelJSON.text(mode) : mode.line + KeptSettings.notice(changed: command != nil))
            return
        }
        // Only asking is a request of its own, answered in a command's shape.
        let request = command.map(ControlRequest.init) ?? ControlRequest(id: nil, cmd: .playlist)
        do {
            guard let mode = try client.perform(request, reply: .playlist).playlist else { return }
            StandardStream.line(json ? ModelJSON.text(mode) : mode.line)
        } catch {
            throw BackgroundPlayer.cliError(error)
        }
    }
}
