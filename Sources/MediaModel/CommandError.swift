/// Why a command failed, with the one code every layer uses: the session
/// throws it, the protocol sends it, the CLI turns its code into an exit status.
public struct CommandError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Codable, Sendable, CaseIterable {
        case noSuchItem = "no-such-item"
        case invalidItem = "invalid-item"
        case downloadFailed = "download-failed"
        case playbackFailed = "playback-failed"
        case badRequest = "bad-request"
        case unknownCommand = "unknown-command"
        case lineTooLong = "line-too-long"
        case forbidden
        case wrongFeed = "wrong-feed"
        case shuttingDown = "shutting-down"
        /// A program mediaplay needs is not there (yt-dlp, for a web page).
        case unavailable
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
