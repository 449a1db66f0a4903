import ArgumentParser
import Foundation
import MediaControl
import MediaModel
import MediaTerminal
import MediaplayCommon

public struct VolumeCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Show or set the background player's volume.",
        discussion: """
            A percentage from 0 to 150, a linear gain (50 halves every sample); +N and -N \
            change it by N. It applies to every item at once, and is kept for the \
            next start of the background player; while none runs, the kept volume \
            changes. Without a value, prints the volume. Exit status 64 for a value \
            out of range.

            Examples:
              mediaplay volume            🔊 volume 100 %
              mediaplay volume 60
              mediaplay volume -10
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the settings as JSON (volume, muted, speed, loudness, replayGain).")
    var json = false

    // Captured as is, so that "-10" is a value, not an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("N, +N or -N.", valueName: "level"))
    var level: [String] = []

    public func run() throws {
        try runReportingErrors {
            let level = ControlLine.values(level)
            try AudioSettingsText.send(level.isEmpty ? nil : try ControlLine.command(["volume"] + level), query: .volume, global: global, json: json)
        }
    }
}

public struct MuteCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "mute",
        abstract: "Mute or unmute the background player (the volume is kept).",
        discussion: """
            Without a value, toggles. While no background player runs, the kept \
            setting changes (its next start's).

            Examples:
              mediaplay mute              🔇 muted (volume 80 %)
              mediaplay mute off
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the settings as JSON (volume, muted, speed, loudness, replayGain).")
    var json = false

    @Argument(help: ArgumentHelp("on or off (default: the other).", valueName: "on|off"))
    var state: String?

    public func run() throws {
        try runReportingErrors {
            try AudioSettingsText.send(try ControlLine.command("mute", state ?? ""), query: .mute, global: global, json: json)
        }
    }
}

public struct SpeedCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Show or set the background player's speed (the pitch is kept).",
        discussion: """
            A factor from 0.25 to 4 (1.5 plays a lecture half again as fast). It applies \
            to every item; the playing one goes on from where it stands. Kept for the \
            next start of the background player (changed while none runs). Without a \
            value, prints the settings.

            Examples:
              mediaplay speed 1.5
              mediaplay speed 1
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the settings as JSON (volume, muted, speed, loudness, replayGain).")
    var json = false

    @Argument(help: ArgumentHelp("The factor, 0.25–4.", valueName: "x"))
    var factor: String?

    public func run() throws {
        try runReportingErrors {
            try AudioSettingsText.send(try factor.map { factor throws(CLIError) in try ControlLine.command("speed", factor) }, query: .speed, global: global, json: json)
        }
    }
}

/// Sends a `volume`, `mute` or `speed` request and prints the settings it left.
enum AudioSettingsText {
    /// `command` (nil: only asks). With no background player running, the
    /// kept settings change (the next start's) and the reply says so.
    static func send(_ command: PlayerCommand?, query: ControlRequest.Command, global: GlobalOptions, json: Bool) throws(CLIError) {
        guard let client = try BackgroundPlayer.connect(global, start: false) else {
            let store = try KeptSettings.open(global)
            var settings = store.audioSettings() ?? ConfiguredDefaults.values.audio
            if let command, let changed = settings.applying(command) {
                settings = changed
                try KeptSettings.save(changed, in: store)
            }
            StandardStream.line(json ? ModelJSON.text(settings) : settings.line + KeptSettings.notice(changed: command != nil))
            return
        }
        // Only asking is a request of its own, answered in a command's shape.
        let request = command.map(ControlRequest.init) ?? ControlRequest(id: nil, cmd: query)
        let outcome: PlayerOutcome
        do {
            outcome = try client.perform(request, reply: .audio)
        } catch {
            throw BackgroundPlayer.cliError(error)
        }
        guard let settings = outcome.audio else { return }
        StandardStream.line(json ? ModelJSON.text(settings) : settings.line)
    }

}
