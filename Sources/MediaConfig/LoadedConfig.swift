import Foundation
import MediaModel
import MediaTerminal
import Synchronization

/// The config this process read at its start (the built-in defaults when
/// there is no file), for the commands to take their defaults from.
public enum LoadedConfig {
    private static let loaded = Mutex(Config())

    /// The config of a command run inside another process (a test's
    /// in-process run), over the process's own.
    @TaskLocal public static var scoped: Config?

    public static var current: Config { scoped ?? loaded.withLock { $0 } }

    /// The commands a bad file never stops: they only ask or stop the
    /// background player (already running with the settings it read), show
    /// the settings, or show help, and use no setting of the file.
    static let unaffected: Set<String> = ["status", "stop", "quit", "config", "help"]

    /// Reads config.toml, or ends the program: a bad file is one line and
    /// exit 78 (EX_CONFIG), before anything starts with half of it. `status`,
    /// `stop`, `quit`, `config` and help print the line (the file, the line
    /// and the key) and go on with the built-in defaults, so a mistake never
    /// locks anyone out of a running player.
    @discardableResult
    public static func loadOrExit(_ environment: [String: String] = CommandContext.current.environment, arguments: [String] = CommandLine.arguments) -> Config {
        guard let config = load(environment, arguments: arguments) else { exit(78) }
        loaded.withLock { $0 = config }
        return config
    }

    /// Reads config.toml for a command (`arguments` with the program's name
    /// first): nil after the line saying why it cannot run (exit 78).
    public static func load(_ environment: [String: String], arguments: [String]) -> Config? {
        do {
            return try Config.load(environment)
        } catch {
            let text = DisplayWidth.escaped(error.description.redactingUserinfo)
            if goesOnDespiteMistakes(arguments) {
                StandardStream.error("mediaplay: \(text) (ignored for this command: built-in defaults; fix it, see docs/CONFIG.md)\n")
                return Config()
            }
            StandardStream.error("mediaplay: \(text) (fix it, or move it aside; see docs/CONFIG.md)\n")
            return nil
        }
    }

    /// Whether the command line asks for help or runs a command the file
    /// does not change (`unaffected`), wherever the shared options stand
    /// (`mediaplay --runtime-dir DIR status`).
    static func goesOnDespiteMistakes(_ arguments: [String]) -> Bool {
        let words = arguments.dropFirst()
        if words.contains(where: { ["--help", "-h", "--version", "--help-hidden"].contains($0) }) { return true }
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            // The shared options and their values (`--feed X`, `--feed=X`).
            if ["--feed", "--cache-dir", "--runtime-dir"].contains(word) {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            return unaffected.contains(word)
        }
        return false
    }
}
