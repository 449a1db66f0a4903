import ArgumentParser
import Foundation
import MediaListing
import MediaplayCommandLine

// The `mediaplay` program. The background player's client commands run here,
// in a process that loads no media libraries, so a `toggle` bound to a key
// answers at once (a plain `toggle N` before the argument parser even runs:
// QuickToggle); so does `list` of a local feed whose files are all probed
// (QuickList). Every other command runs in mediaplay-core, by exec (same
// arguments, same process id, same exit status).

/// The commands served in this process (`mediaplay --help` lists them all,
/// from mediaplay-core).
struct ClientCommands: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediaplay",
        subcommands: [ToggleCommand.self, StatusCommand.self, StopCommand.self, SeekCommand.self, VolumeCommand.self, MuteCommand.self, SpeedCommand.self, NextCommand.self, PrevCommand.self, RepeatCommand.self, ShuffleCommand.self, AutoplayCommand.self, QuitCommand.self]
    )
}

/// mediaplay-core beside this program (a build folder), or in
/// PREFIX/libexec/mediaplay/ once installed.
func corePath() -> String? {
    let folder = parentFolder(runningExecutable())
    for candidate in [folder + "/mediaplay-core", folder + "/../libexec/mediaplay/mediaplay-core"] where access(candidate, X_OK) == 0 {
        return absolutePath(candidate)
    }
    return nil
}

let arguments = CommandLine.arguments
if let status = QuickToggle.run(arguments) {
    exit(status)
} else if arguments.count > 1, arguments[1] == "list", let status = QuickList.run(Array(arguments.dropFirst(2))) {
    exit(status)
} else if arguments.count > 1, ClientCommands.configuration.subcommands.contains(where: { $0.configuration.commandName == arguments[1] }) {
    ClientCommands.main()
} else if let core = corePath() {
    let argv = arguments.map { strdup($0) } + [nil]
    execv(core, argv)
    FileHandle.standardError.write(Data("mediaplay: cannot run \(core): \(String(cString: strerror(errno)))\n".utf8))
    exit(SysExit.unavailable.rawValue)
} else {
    FileHandle.standardError.write(Data("mediaplay: mediaplay-core is missing beside this program (reinstall with 'make install')\n".utf8))
    exit(SysExit.unavailable.rawValue)
}
