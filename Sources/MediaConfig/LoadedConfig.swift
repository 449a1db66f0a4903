import Foundation
import MediaTerminal
import Synchronization

/// The config this process read at its start (the built-in defaults when
/// there is no file), for the commands to take their defaults from.
public enum LoadedConfig {
    private static let loaded = Mutex(Config())

    public static var current: Config { loaded.withLock { $0 } }

    /// Reads config.toml, or ends the program: a bad file is one line and
    /// exit 78 (EX_CONFIG), before anything starts with half of it.
    @discardableResult
    public static func loadOrExit(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Config {
        do {
            let config = try Config.load(environment)
            loaded.withLock { $0 = config }
            return config
        } catch {
            StandardStream.error("mediaplay: \(DisplayWidth.escaped(error.description)) (fix it, or move it aside; see docs/CONFIG.md)\n")
            exit(78)
        }
    }
}
