import ArgumentParser
import Foundation
import MediaplayCommandLine

// The `mediaplay` program. The background player's client commands run here,
// in a process that loads no media libraries, so a `toggle` bound to a key
// answers at once; so does `list` of a local feed whose files are all probed
// (QuickList, in libMediaplayList.so, loaded only to list). Every other command runs in mediaplay-core, by exec (same
// arguments, same process id, same exit status).

/// The commands served in this process (`mediaplay --help` lists them all,
/// from mediaplay-core).
struct ClientCommands: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediaplay",
        subcommands: [ToggleCommand.self, StatusCommand.self, StopCommand.self, SeekCommand.self, VolumeCommand.self, MuteCommand.self, SpeedCommand.self, NextCommand.self, PrevCommand.self, RepeatCommand.self, ShuffleCommand.self, AutoplayCommand.self, QuitCommand.self]
    )
}

/// A file of ours beside this program (a build folder), or in
/// PREFIX/libexec/mediaplay/ once installed.
func companion(_ name: String, executable: Bool) -> String? {
    let folder = (runningExecutable() as NSString).deletingLastPathComponent
    for candidate in [folder + "/" + name, folder + "/../libexec/mediaplay/" + name] {
        let usable = executable ? FileManager.default.isExecutableFile(atPath: candidate) : FileManager.default.isReadableFile(atPath: candidate)
        if usable { return (candidate as NSString).standardizingPath }
    }
    return nil
}

func corePath() -> String? { companion("mediaplay-core", executable: true) }

/// `list` by the quick path (MediaListing's QuickList, in a library loaded
/// only here): its exit status, or nil to run mediaplay-core.
func quickList(_ arguments: [String]) -> Int32? {
    typealias Entry = @convention(c) (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> Int32
    guard let path = companion("libMediaplayList.so", executable: false),
          let library = dlopen(path, RTLD_NOW | RTLD_LOCAL),
          let symbol = dlsym(library, "mediaplay_quick_list")
    else { return nil }
    let entry = unsafeBitCast(symbol, to: Entry.self)
    let copies = arguments.map { UnsafePointer(strdup($0)) }
    defer { for copy in copies { free(UnsafeMutablePointer(mutating: copy)) } }
    let status = copies.withUnsafeBufferPointer { entry(Int32(arguments.count), $0.baseAddress) }
    return status >= 0 ? status : nil
}

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "list", let status = quickList(Array(arguments.dropFirst(2))) {
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
