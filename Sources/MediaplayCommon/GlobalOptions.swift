import ArgumentParser
import Foundation
import MediaModel

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

    /// The running command's environment (`CommandContext.current`).
    public var environment: [String: String] { CommandContext.current.environment }

    /// The options as given, for a hint to run again (`mediaplay fetch 3 --feed
    /// typo.json`): what the user typed, each word quoted when the shell needs it.
    public var givenOptions: String {
        var words: [String] = []
        if let feed { words += ["--feed", feed] }
        if let cacheDir { words += ["--cache-dir", cacheDir] }
        if let runtimeDir { words += ["--runtime-dir", runtimeDir] }
        return words.map { " " + Self.shellWord($0) }.joined()
    }

    /// A word as a POSIX shell reads it back: as is when plain, else in single quotes.
    public static func shellWord(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_./:=@%+,".unicodeScalars.contains($0)) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The feed to read: --feed, else $MEDIAPLAY_FEED, else the bundled one.
    public func feedLocation() throws(CLIError) -> String {
        let environment = self.environment
        return try Self.feedLocation(option: feed) { environment[$0] }
    }

    /// The feed the user named for this command: --feed, else
    /// $MEDIAPLAY_FEED; nil when neither is given (the background player's
    /// commands then address the feed it plays, as its queue).
    public func namedFeed() throws(CLIError) -> String? {
        let environment = self.environment
        return try Self.namedFeed(option: feed) { environment[$0] }
    }

    public static func namedFeed(option: String?, _ environment: (String) -> String?) throws(CLIError) -> String? {
        let given = (option.flatMap { $0.isEmpty ? nil : $0 }) ?? environment("MEDIAPLAY_FEED").flatMap { $0.isEmpty ? nil : $0 }
        return try given.map { name throws(CLIError) in try named(name) }
    }

    /// --cache-dir, else $MEDIAPLAY_CACHE_DIR, else $XDG_CACHE_HOME/mediaplay.
    public var cacheDirectory: String {
        if let cacheDir, !cacheDir.isEmpty { return absolutePath(cacheDir) }
        if let dir = environment["MEDIAPLAY_CACHE_DIR"], !dir.isEmpty { return absolutePath(dir) }
        if let dir = ConfiguredDefaults.values.cacheFolder, !dir.isEmpty { return absolutePath(dir) }
        return XDG.cacheHome(environment) + "/mediaplay"
    }

    /// --runtime-dir, else $MEDIAPLAY_RUNTIME_DIR, else $XDG_RUNTIME_DIR/mediaplay, else /tmp/mediaplay-UID.
    public var runtimeDirectory: String {
        let environment = self.environment
        return Self.runtimeDirectory(option: runtimeDir) { environment[$0] }
    }

    // The same rules for a caller with no parsed options (QuickToggle), with
    // the environment as a lookup: building the whole dictionary costs a
    // static program a scan of its conformances.

    public static func feedLocation(option: String?, _ environment: (String) -> String?) throws(CLIError) -> String {
        if let option, !option.isEmpty { return try named(option) }
        if let feed = environment("MEDIAPLAY_FEED"), !feed.isEmpty { return try named(feed) }
        if let feed = ConfiguredDefaults.values.feed, !feed.isEmpty { return try named(feed.hasPrefix("~") ? absolutePath(feed) : feed) }
        if let bundled = BundledFeed.path() { return bundled }
        throw CLIError(
            "no feed given and the bundled media.json was not found next to the program (pass --feed PATH or set MEDIAPLAY_FEED)",
            exitCode: .noInput
        )
    }

    /// A name from config.toml's [feeds] or the imported feeds is its
    /// location; a file of that name in the current folder wins (it is what
    /// the user sees).
    static func named(_ feed: String) throws(CLIError) -> String {
        guard access(feed, F_OK) != 0, let location = try NamedFeeds.location(of: feed) else { return feed }
        return location.hasPrefix("~") ? absolutePath(location) : location
    }

    public static func runtimeDirectory(option: String?, _ environment: (String) -> String?) -> String {
        // Its own last component is never resolved: a link there must be
        // seen (and refused) as a link, not followed to a shared folder.
        if let option, !option.isEmpty { return absolutePath(option, resolvingLast: false) }
        if let dir = environment("MEDIAPLAY_RUNTIME_DIR"), !dir.isEmpty { return absolutePath(dir, resolvingLast: false) }
        if let dir = environment("XDG_RUNTIME_DIR"), dir.hasPrefix("/") { return dir + "/mediaplay" }
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

// These run before every client command and QuickToggle, so they use libc
// (readlink, realpath, access), not FileManager and NSString's path methods:
// those cost a static program 0.5 ms of type lookups on first use.

/// The running program's absolute path (a symlink such as /usr/bin/mediaplay resolved).
public func runningExecutable() -> String {
    if let program = CommandContext.current.program { return program }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return absolutePath(CommandLine.arguments[0]) }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `path` made absolute (from the working directory, `~` from $HOME), with
/// symbolic links, `.` and `..` resolved; a path that does not exist yet is
/// tidied as written.
public func absolutePath(_ path: String, resolvingLast: Bool = true) -> String {
    // The running command's home and folder (`CommandContext.current`).
    let context = CommandContext.current
    var expanded = path
    if path == "~" || path.hasPrefix("~/"), let home = context.variable("HOME"), !home.isEmpty {
        expanded = home + path.dropFirst()
    } else if path.hasPrefix("~") {
        expanded = (path as NSString).expandingTildeInPath
    }
    var absolute = expanded
    if !expanded.hasPrefix("/") {
        if let folder = context.workingDirectory {
            absolute = folder + "/" + expanded
        } else {
            guard let folder = getcwd(nil, 0) else { return (expanded as NSString).standardizingPath }
            defer { free(folder) }
            absolute = String(cString: folder) + "/" + expanded
        }
    }
    if !resolvingLast {
        // The folder above resolved; the last name kept as it is.
        var trimmed = absolute
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let name = (trimmed as NSString).lastPathComponent
        guard trimmed != "/", name != "..", name != "." else { return absolutePath(trimmed) }
        let folder = absolutePath(parentFolder(trimmed))
        return (folder == "/" ? "" : folder) + "/" + name
    }
    if let resolved = realpath(absolute, nil) {
        defer { free(resolved) }
        return String(cString: resolved)
    }
    return (absolute as NSString).standardizingPath
}

/// The program `name` beside this one (a build folder), or in
/// PREFIX/libexec/mediaplay/ once installed.
public func helperPath(_ name: String) -> String? {
    let folder = parentFolder(runningExecutable())
    for candidate in [folder + "/" + name, folder + "/../libexec/mediaplay/" + name] where access(candidate, X_OK) == 0 {
        return absolutePath(candidate)
    }
    return nil
}

/// The folder that holds `path` ("/a/b" → "/a", "/a" → "/").
public func parentFolder(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// Finds the media.json that ships with the program: in a source checkout it
/// sits at the package root above `.build/…/mediaplay`; once installed, in
/// `PREFIX/share/mediaplay/` beside `PREFIX/bin/`.
public enum BundledFeed {
    public static func path() -> String? {
        var folder = parentFolder(runningExecutable())
        for _ in 0..<5 {
            let installed = folder + "/../share/mediaplay/media.json"
            if access(installed, F_OK) == 0 { return absolutePath(installed) }
            let checkout = folder + "/media.json"
            if access(checkout, F_OK) == 0 && access(folder + "/Package.swift", F_OK) == 0 {
                return checkout
            }
            folder = parentFolder(folder)
        }
        return nil
    }
}
