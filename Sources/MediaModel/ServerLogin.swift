/// How mediaplay logs in to a media server a named feed points at
/// (config.toml's `[feeds.NAME]` table: `url`, `user`, and `password` or
/// `password-command`). The password never travels in the feed's location.
public struct ServerLogin: Sendable, Equatable {
    public var user: String?
    public var password: String?
    /// Run by /bin/sh; its first line is the password.
    public var passwordCommand: String?

    public init(user: String? = nil, password: String? = nil, passwordCommand: String? = nil) {
        self.user = user
        self.password = password
        self.passwordCommand = passwordCommand
    }
}
