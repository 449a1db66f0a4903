import Foundation
import MediaModel
import MediaState
import MediaplayCommon

/// The settings kept for the background player's next start, in the state
/// database: what `volume`, `mute`, `speed` and the playlist's modes change
/// while no background player runs.
enum KeptSettings {
    static func open(_ global: GlobalOptions) throws(CLIError) -> StateStore {
        let folder = BackgroundPlayer.stateDirectory(global)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try StateStore(path: folder + "/positions.sqlite")
        } catch let error as StateStoreError {
            throw CLIError(error.description, exitCode: .ioError)
        } catch {
            throw CLIError("cannot keep the setting in \(folder): \(error) (check the folder's permissions)", exitCode: .ioError)
        }
    }

    /// Keeps `settings`: one not saved is an I/O error, never "kept".
    static func save(_ settings: AudioSettings, in store: StateStore) throws(CLIError) {
        do { try store.save(settings) } catch { throw CLIError(error.description, exitCode: .ioError) }
    }

    /// Keeps `mode`: one not saved is an I/O error, never "kept".
    static func save(_ mode: PlaylistMode, in store: StateStore) throws(CLIError) {
        do { try store.save(mode) } catch { throw CLIError(error.description, exitCode: .ioError) }
    }

    /// What the reply adds when no player runs.
    static func notice(changed: Bool) -> String {
        changed ? " (kept for the background player's next start; it is not running)" : " (the background player is not running; these apply at its next start)"
    }
}
