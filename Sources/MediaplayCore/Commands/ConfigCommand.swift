import ArgumentParser
import Foundation
import MediaCache
import MediaConfig
import MediaModel
import MediaplayCommandLine
import MediaTerminal
import MediaplayCommon

/// `mediaplay config`: the settings in effect and the key bindings, each with
/// where it came from (docs/CONFIG.md).
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the settings in effect and the key bindings, with where each came from.",
        discussion: """
            Settings come from the command line, then the environment, then \
            $XDG_CONFIG_HOME/mediaplay/config.toml, then the built-in defaults \
            (docs/CONFIG.md lists every key). A file with a mistake stops the \
            commands it changes with its line and column, exit 78; config itself \
            (like status, stop, quit and --help) says the line and shows the \
            built-in defaults.

            Example of a config.toml:
              [playback]
              volume = 80
              [keys]
              x = "seek +20"
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print them as JSON.")
    var json = false

    struct Setting: Codable {
        var section: String
        var key: String
        var value: String
        var source: String
    }

    struct Binding: Codable {
        var key: String
        var command: String
        var source: String
    }

    struct Document: Codable {
        var file: String
        var exists: Bool
        var settings: [Setting]
        var keys: [Binding]
    }

    func run() throws {
        try runReportingErrors {
            let config = LoadedConfig.current
            let environment = global.environment
            let fromFile = Config.Source.file.rawValue
            func setting(_ section: String, _ key: String, _ value: String?, _ fallback: String) -> Setting {
                Setting(section: section, key: key, value: value ?? fallback, source: value == nil ? "default" : fromFile)
            }
            var settings = [
                setting("playback", "volume", config.volume.map(String.init), "100"),
                setting("playback", "speed", config.speed.map { SpeedText.text($0) }, "1×"),
                setting("playback", "mute", config.mute.map { $0 ? "true" : "false" }, "false"),
                setting("playback", "autoplay", config.autoplay.map { $0 ? "true" : "false" }, "true"),
                setting("playback", "repeat", config.repeat?.rawValue, "off"),
                setting("playback", "shuffle", config.shuffle.map { $0 ? "true" : "false" }, "false"),
                setting("playback", "video-output", config.videoOutput, "auto"),
                setting("playback", "images", config.images, "what the terminal supports"),
                setting("playback", "start", config.start, "resume"),
                setting("playback", "loudness", config.loudness?.rawValue, "on"),
                setting("playback", "replaygain", config.replayGain?.rawValue, "auto"),
                setting("playback", "replaygain-preamp", config.replayGainPreamp.map { "\($0) dB" }, "0 dB"),
                setting("playback", "replaygain-clip", config.replayGainClip.map { $0 ? "true" : "false" }, "true"),
                setting("playback", "loudness-target", config.loudnessTarget.map { "\($0) LUFS" }, "-18 LUFS"),
                setting("playback", "measure-loudness", config.measureLoudness.map { $0 ? "true" : "false" }, "true"),
                setting("playback", "af", config.audioFilters, "none"),
                setting("playback", "sid", config.subtitleTrack?.description, "auto"),
                setting("playback", "slang", config.subtitleLanguages?.joined(separator: ","), "LANG's, then the first"),
                setting("playback", "aid", config.audioTrack?.description, "auto"),
                setting("playback", "alang", config.audioLanguages?.joined(separator: ","), "the file's choice"),
                setting("playback", "sub-delay", config.subtitleDelay.map { "\($0) s" }, "0 s"),
            ]
            // The shared options: the command line, the environment, the file, the default.
            let feedSource = global.feed != nil ? "command line" : environment["MEDIAPLAY_FEED"].map { $0.isEmpty ? nil : "environment (MEDIAPLAY_FEED)" } ?? nil
            settings.append(Setting(section: "feed", key: "default", value: (try? global.feedLocation()) ?? "none", source: feedSource ?? (config.feed == nil ? "default" : fromFile)))
            let cacheSource = global.cacheDir != nil ? "command line" : environment["MEDIAPLAY_CACHE_DIR"].map { $0.isEmpty ? nil : "environment (MEDIAPLAY_CACHE_DIR)" } ?? nil
            settings.append(Setting(section: "cache", key: "folder", value: global.cacheDirectory, source: cacheSource ?? (config.cacheFolder == nil ? "default" : fromFile)))
            settings.append(setting("cache", "max-size", config.maxSize, "4G"))
            settings.append(setting("network", "timeout", config.networkTimeout.map { "\($0) s" }, "\(NetworkLimits.defaultTimeout) s"))
            // The password itself is never printed.
            settings.append(setting("mpd", "listen", config.mpdListen, "off"))
            settings.append(setting("mpd", "password", config.mpdPassword.map { _ in "(set)" } ?? config.mpdPasswordCommand.map { "from: \($0)" }, "none"))
            settings.append(setting("mpd", "max-clients", config.mpdMaxClients.map(String.init), "100"))
            let keys = config.keymap.bindings.keys.sorted().map { key in
                Binding(key: key, command: config.keymap.bindings[key]!.description, source: config.changedKeys.contains(key) ? fromFile : "default")
            } + config.changedKeys.filter { config.keymap.bindings[$0] == nil }.sorted().map { Binding(key: $0, command: "", source: fromFile) }
            let path = config.path ?? Config.path(environment)
            let document = Document(file: path, exists: config.path != nil, settings: settings, keys: keys)
            if json {
                StandardStream.line(ModelJSON.text(document))
                return
            }
            StandardStream.line("config file: \(DisplayWidth.escaped(path))\(config.path == nil ? " (none: built-in defaults)" : "")")
            var section = ""
            // The names are what one types into config.toml: never cut.
            let nameWidth = max(13, (settings.map(\.key) + keys.map(\.key)).map { DisplayWidth.of($0) }.max() ?? 0)
            for item in settings {
                if item.section != section {
                    section = item.section
                    StandardStream.line("[\(section)]")
                }
                StandardStream.line("  " + DisplayWidth.pad(item.key, to: nameWidth) + " " + DisplayWidth.pad(DisplayWidth.escaped(item.value), to: 40) + " " + item.source)
            }
            StandardStream.line("[keys]")
            for binding in keys {
                StandardStream.line("  " + DisplayWidth.pad(binding.key, to: nameWidth) + " " + DisplayWidth.pad(binding.command.isEmpty ? "(unbound)" : binding.command, to: 40) + " " + binding.source)
            }
        }
    }
}
