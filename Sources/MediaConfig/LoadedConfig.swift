import Foundation
import MediaModel
import MediaTerminal
import Synchronization

/// The config this process read at its start (the built-in defaults when
/// there is no file), for the commands to take their defaults from.
public enum LoadedConfig {
    private static let loaded = Mutex(Config())

    public static var current: Config { loaded.withLock { $0 } }

    /// The commands a bad file never stops: they only ask the background
    /// player (already running with the settings it read) and use no setting.
    static let unaffected: Set<String> = ["status", "quit"]

    /// Reads config.toml, or ends the program: a bad file is one line and
    /// exit 78 (EX_CONFIG), before anything starts with half of it. `status`
    /// and `quit` print the line and go on with the built-in defaults.
    @discardableResult
    public static func loadOrExit(_ environment: [String: String] = ProcessInfo.processInfo.environment, arguments: [String] = CommandLine.arguments) -> Config {
        do {
            let config = try Config.load(environment)
            loaded.withLock { $0 = config }
            return config
        } catch {
            StandardStream.error("mediaplay: \(DisplayWidth.escaped(error.description.redactingUserinfo)) (fix it, or move it aside; see docs/CONFIG.md)\n")
            if arguments.count > 1, unaffected.contains(arguments[1]) { return current }
            exit(78)
        }
    }
}
