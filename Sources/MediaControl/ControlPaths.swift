import Foundation
import MediaFeed
import MediaModel

/// Where the background player listens, and its other files, for a runtime dir.
public struct ControlPaths: Sendable {
    public let runtimeDirectory: String

    public init(runtimeDirectory: String) {
        self.runtimeDirectory = runtimeDirectory
    }

    public var socket: String { runtimeDirectory + "/mediaplay.sock" }
    /// Held (flock) by the running daemon: one per runtime dir.
    public var lock: String { runtimeDirectory + "/mediaplay.lock" }
}

/// How long a client waits for the background player before it says that
/// it does not answer: for a connection, and for each line of a reply (a
/// long toggle sends its progress in between). `MEDIAPLAY_CLIENT_TIMEOUT`
/// (seconds) changes it.
public enum ClientTimeout {
    public static let standard: Double = 10

    public static func seconds(_ environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> Double {
        guard let text = environment("MEDIAPLAY_CLIENT_TIMEOUT"), let value = Double(text), value.isFinite, value > 0 else { return standard }
        return min(value, 3600)
    }

    /// Now plus `seconds`, as a request's `expires`.
    public static func expiry(after seconds: Double) -> Int64 {
        Int64((Date().timeIntervalSince1970 + seconds) * 1000)
    }
}
