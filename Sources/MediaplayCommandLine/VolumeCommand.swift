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

    @Flag(name: .long, help: "Print the setting as JSON (volume, muted).")
    var json = false

    // Captured as is, so that "-10" is a value, not an option.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("N, +N or -N.", valueName: "level"))
    var level: [String] = []

    public func run() throws {
        try runReportingErrors {
            var request = ControlRequest(id: nil, cmd: .volume)
            if let word = level.first {
                guard level.count == 1, let number = Int(word), AudioSettings.range.contains(abs(number)) else {
                    throw CLIError("volume takes N (0–150), +N or -N, not \"\(level.joined(separator: " "))\"", exitCode: .usage)
                }
                if word.hasPrefix("+") || word.hasPrefix("-") { request.step = number } else { request.level = number }
            }
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

    @Flag(name: .long, help: "Print the setting as JSON (volume, muted).")
    var json = false

    @Argument(help: ArgumentHelp("on or off (default: the other).", valueName: "on|off"))
    var state: String?

    public func run() throws {
        try runReportingErrors {
            var request = ControlRequest(id: nil, cmd: .mute)
            switch state {
            case nil: break
            case "on": request.on = true
            case "off": request.on = false
            case let other?: throw CLIError("mute takes on or off, not \"\(other)\"", exitCode: .usage)
            }
            try AudioSettingsText.send(request, global: global, json: json)
        }
    }
}

/// Sends a `volume` or `mute` request and prints the setting it left.
enum AudioSettingsText {
    static func send(_ request: ControlRequest, global: GlobalOptions, json: Bool) throws(CLIError) {
        guard let client = try BackgroundPlayer.connect(global, start: false) else {
            throw CLIError("the background player is not running (start it with 'mediaplay toggle N')", exitCode: .unavailable)
        }
        let settings: AudioSettings
        do {
            settings = try client.call(request, as: AudioSettings.self)
        } catch {
            throw BackgroundPlayer.cliError(error)
        }
        print(json ? ModelJSON.text(settings) : line(settings))
    }

    /// `🔊 volume 80 %`, or `🔇 muted (volume 80 %)`.
    public static func line(_ settings: AudioSettings) -> String {
        settings.muted ? "🔇 muted (volume \(settings.volume) %)" : "🔊 volume \(settings.volume) %"
    }
}
