import ArgumentParser
import Foundation
import MediaControl
import MediaModel

public struct VolumeCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Show or set the background player's volume.",
        discussion: """
            A percentage from 0 to 150, a linear gain (50 halves every sample); +N and -N \
            change it by N. It applies to every item at once, and is kept for the \
            next start of the background player. Without a value, prints the volume. Exit status 64 \
            for a value out of range, 69 when the background player is not running.

            Examples:
              mediaplay volume            🔊 volume 100 %
              mediaplay volume 60
              mediaplay volume -10
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the settings as JSON (volume, muted, speed).")
    var json = false

    // Captured as is, so that "-10" is a value, not an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("N, +N or -N.", valueName: "level"))
    var level: [String] = []

    public func run() throws {
        try runReportingErrors {
            let request = level.isEmpty ? ControlRequest(id: nil, cmd: .volume) : ControlRequest(try ControlLine.command(["volume"] + level))
            try AudioSettingsText.send(request, global: global, json: json)
        }
    }
}

public struct MuteCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "mute",
        abstract: "Mute or unmute the background player (the volume is kept).",
        discussion: """
            Without a value, toggles. Exit status 69 when the background player is not running.

            Examples:
              mediaplay mute              🔇 muted (volume 80 %)
              mediaplay mute off
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the settings as JSON (volume, muted, speed).")
    var json = false

    @Argument(help: ArgumentHelp("on or off (default: the other).", valueName: "on|off"))
    var state: String?

    public func run() throws {
        try runReportingErrors {
            try AudioSettingsText.send(ControlRequest(try ControlLine.command("mute", state ?? "")), global: global, json: json)
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
            next start of the background player. Without a value, prints the settings.

            Examples:
              mediaplay speed 1.5
              mediaplay speed 1
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the settings as JSON (volume, muted, speed).")
    var json = false

    @Argument(help: ArgumentHelp("The factor, 0.25–4.", valueName: "x"))
    var factor: String?

    public func run() throws {
        try runReportingErrors {
            let request = try factor.map { factor throws(CLIError) in ControlRequest(try ControlLine.command("speed", factor)) } ?? ControlRequest(id: nil, cmd: .speed)
            try AudioSettingsText.send(request, global: global, json: json)
        }
    }
}

/// Sends a `volume`, `mute` or `speed` request and prints the settings it left.
enum AudioSettingsText {
    static func send(_ request: ControlRequest, global: GlobalOptions, json: Bool) throws(CLIError) {
        let settings = try BackgroundPlayer.call(request, as: AudioSettings.self, global)
        print(json ? ModelJSON.text(settings) : line(settings))
    }

    /// `🔊 volume 80 %`, or `🔇 muted (volume 80 %)`; then the speed when it is not 1.
    public static func line(_ settings: AudioSettings) -> String {
        let volume = settings.muted ? "🔇 muted (volume \(settings.volume) %)" : "🔊 volume \(settings.volume) %"
        return settings.speed == 1 ? volume : volume + " · speed \(SpeedText.text(settings.speed))"
    }
}
