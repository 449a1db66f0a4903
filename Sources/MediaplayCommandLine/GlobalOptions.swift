import ArgumentParser
import Foundation

/// Options every command understands (the README lists them). Each falls back to an
/// environment variable, then to an XDG default.
public struct GlobalOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("Feed file or http(s) URL (env MEDIAPLAY_FEED; default: the bundled media.json).", valueName: "path|url"))
    public var feed: String?

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Download cache (env MEDIAPLAY_CACHE_DIR; default $XDG_CACHE_HOME/mediaplay).", valueName: "dir"))
    public var cacheDir: String?

    @Option(name: .customLong("runtime-dir"), help: ArgumentHelp("Socket folder of the background player (env MEDIAPLAY_RUNTIME_DIR; default $XDG_RUNTIME_DIR/mediaplay).", valueName: "dir"))
    public var runtimeDir: String?

    public var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The feed to read: --feed, else $MEDIAPLAY_FEED, else the bundled one.
    public func feedLocation() throws(CLIError) -> String {
        if let feed, !feed.isEmpty { return feed }
        if let feed = environment["MEDIAPLAY_FEED"], !feed.isEmpty { return feed }
        if let bundled = BundledFeed.path() { return bundled }
        throw CLIError(
            "no feed given and the bundled media.json was not found next to the program (pass --feed PATH or set MEDIAPLAY_FEED)",
            exitCode: .noInput
        )
    }

    /// --cache-dir, else $MEDIAPLAY_CACHE_DIR, else $XDG_CACHE_HOME/mediaplay.
    public var cacheDirectory: String {
        if let cacheDir, !cacheDir.isEmpty { return absolutePath(cacheDir) }
        if let dir = environment["MEDIAPLAY_CACHE_DIR"], !dir.isEmpty { return absolutePath(dir) }
        return XDG.cacheHome(environment) + "/mediaplay"
    }

    /// --runtime-dir, else $MEDIAPLAY_RUNTIME_DIR, else $XDG_RUNTIME_DIR/mediaplay, else /tmp/mediaplay-UID.
    public var runtimeDirectory: String {
        if let runtimeDir, !runtimeDir.isEmpty { return absolutePath(runtimeDir) }
        if let dir = environment["MEDIAPLAY_RUNTIME_DIR"], !dir.isEmpty { return absolutePath(dir) }
        if let dir = environment["XDG_RUNTIME_DIR"], dir.hasPrefix("/") { return dir + "/mediaplay" }
        return "/tmp/mediaplay-\(getuid())"
    }
}

/// The XDG base directories, with the specification's defaults.
public enum XDG {
    public static func cacheHome(_ environment: [String: String]) -> String {
        if let dir = environment["XDG_CACHE_HOME"], dir.hasPrefix("/") { return dir }
        return home(environment) + "/.cache"
    }

    public static func stateHome(_ environment: [String: String]) -> String {
        if let dir = environment["XDG_STATE_HOME"], dir.hasPrefix("/") { return dir }
        return home(environment) + "/.local/state"
    }

    public static func home(_ environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }
}

/// The running program's absolute path (a symlink such as /usr/bin/mediaplay resolved).
public func runningExecutable() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? absolutePath(CommandLine.arguments[0])
}

public func absolutePath(_ path: String) -> String {
    if path.hasPrefix("/") { return (path as NSString).standardizingPath }
    if path.hasPrefix("~") { return (path as NSString).expandingTildeInPath }
    return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path) as NSString).standardizingPath
}

/// Finds the media.json that ships with the program: in a source checkout it
/// sits at the package root above `.build/…/mediaplay`; once installed, in
/// `PREFIX/share/mediaplay/` beside `PREFIX/bin/`.
public enum BundledFeed {
    public static func path() -> String? {
        var folder = (runningExecutable() as NSString).deletingLastPathComponent
        for _ in 0..<5 {
            let installed = folder + "/../share/mediaplay/media.json"
            if FileManager.default.fileExists(atPath: installed) { return (installed as NSString).standardizingPath }
            let checkout = folder + "/media.json"
            if FileManager.default.fileExists(atPath: checkout),
               FileManager.default.fileExists(atPath: folder + "/Package.swift") {
                return checkout
            }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }
}
