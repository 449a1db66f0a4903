import ArgumentParser
import Foundation
import MediaListing
import MediaplayCommandLine
import MediaTerminal
import MediaplayCommon

// The `mediaplay` program. The background player's client commands run here,
// in a process that loads no media libraries, so a `toggle` bound to a key
// answers at once (a plain `toggle N` before the argument parser even runs:
// QuickToggle); so does `list` of a local feed whose files are all probed
// (QuickList). `fetch` and `cache` run in mediaplay-cache (libcurl, no
// FFmpeg or SDL) and every other command in mediaplay-core, by exec (same
// arguments, same process id, same exit status).

/// The commands served in this process (`mediaplay --help` lists them all,
/// from mediaplay-core).
struct ClientCommands: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediaplay",
        subcommands: [ToggleCommand.self, StatusCommand.self, StopCommand.self, SeekCommand.self, VolumeCommand.self, MuteCommand.self, SpeedCommand.self, NextCommand.self, PrevCommand.self, RepeatCommand.self, ShuffleCommand.self, AutoplayCommand.self, SleepCommand.self, ChapterCommand.self, LoudnessCommand.self, SubtitleCommand.self, AudioTrackCommand.self, SubtitleDelayCommand.self, QuitCommand.self]
    )
}

StandardStream.reserveStandardDescriptors()
let arguments = CommandLine.arguments

/// Whether the user has a config.toml: its defaults (the feed, the cache)
/// are read by mediaplay-core and mediaplay-cache, which link the TOML
/// library; this small client then hands every command to them.
func hasConfigFile() -> Bool {
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    let base = variable("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((variable("HOME") ?? "") + "/.config")
    return access(base + "/mediaplay/config.toml", F_OK) == 0
}

let configured = hasConfigFile()
if !configured, let status = QuickToggle.run(arguments) {
    exit(status)
} else if !configured, arguments.count > 1, arguments[1] == "list", let status = QuickList.run(Array(arguments.dropFirst(2))) {
    exit(status)
} else if !configured, arguments.count > 1, ClientCommands.configuration.subcommands.contains(where: { $0.configuration.commandName == arguments[1] }) {
    ClientCommands.main()
} else {
    // `fetch` and `cache` run in mediaplay-cache; everything else, and these
    // too in an install that lacks mediaplay-cache, in mediaplay-core.
    let cacheCommand = arguments.count > 1 && ["fetch", "cache"].contains(arguments[1])
    guard let path = (cacheCommand ? helperPath("mediaplay-cache") : nil) ?? helperPath("mediaplay-core") else {
        StandardStream.error("mediaplay: mediaplay-core is missing beside this program (reinstall with 'make install')\n")
        exit(SysExit.unavailable.rawValue)
    }
    let argv = arguments.map { strdup($0) } + [nil]
    execv(path, argv)
    StandardStream.error("mediaplay: cannot run \(path): \(String(cString: strerror(errno)))\n")
    exit(SysExit.unavailable.rawValue)
}
