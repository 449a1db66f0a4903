import Foundation
import Glibc

/// One user's world for end-to-end tests: XDG folders of its own, a feed,
/// and SDL's disk audio driver recording what reached the "device". No
/// background player started in it outlives it.
open class UserHome: @unchecked Sendable {
    public let folder: TemporaryDirectory
    /// What SDL's disk driver wrote (`SDL_DISKAUDIOFILE`).
    public let disk: String
    /// The feed the commands read (`MEDIAPLAY_FEED`).
    public var feed: String = ""

    /// Async so that subclasses can make their fixtures (see `offPool`) first.
    public init() async throws {
        folder = try TemporaryDirectory()
        disk = folder.path + "/device.raw"
    }

    deinit {
        if let pid = daemonPID { kill(pid, SIGKILL) }
    }

    open var environment: [String: String] {
        [
            "MEDIAPLAY_FEED": feed,
            "XDG_RUNTIME_DIR": folder.path + "/run",
            "XDG_STATE_HOME": folder.path + "/state",
            "XDG_CACHE_HOME": folder.path + "/cache",
            "SDL_AUDIODRIVER": "disk",
            "SDL_DISKAUDIOFILE": disk,
        ].merging(Mediaplay.quietBackground) { $1 }
    }

    /// The background player's socket.
    public var socket: String { folder.path + "/run/mediaplay/mediaplay.sock" }

    public func run(_ arguments: String...) async throws -> RunResult {
        try await Mediaplay.run(arguments, environment: environment)
    }

    /// The background player's pid, from its lock file.
    public var daemonPID: Int32? {
        (try? String(contentsOfFile: folder.path + "/run/mediaplay/mediaplay.lock", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
