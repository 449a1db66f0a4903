import Foundation
import MediaState

/// The settings kept for the background player's next start, in the state
/// database: what `volume`, `mute`, `speed` and the playlist's modes change
/// while no background player runs.
enum KeptSettings {
    static func open(_ global: GlobalOptions) throws(CLIError) -> StateStore {
        let folder = BackgroundPlayer.stateDirectory(global)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try StateStore(path: folder + "/positions.sqlite")
        } catch {
            throw CLIError("cannot keep the setting in \(folder): \(error) (check the folder's permissions)", exitCode: .ioError)
        }
    }

    /// What the reply adds when no player runs.
    static func notice(changed: Bool) -> String {
        changed ? " (kept for the background player's next start; it is not running)" : " (the background player is not running; these apply at its next start)"
    }
}
