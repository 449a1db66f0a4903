import MediaModel
import Synchronization

/// What config.toml says of the options every command shares, set once at a
/// program's start (mediaplay-core and mediaplay-cache read the file; the
/// small client hands every command to mediaplay-core when one exists).
/// Below the command line and the environment, above the built-in defaults.
public enum ConfiguredDefaults {
    public struct Values: Sendable, Equatable {
        public var feed: String?
        public var cacheFolder: String?
        public var maxSize: String?
        /// `[feeds]`: name → path or URL.
        public var feeds: [String: String]
        /// `[feeds.NAME]` tables' logins, by the feed's location.
        public var logins: [String: ServerLogin] = [:]
        /// `[playback]`: what a background player starts with when nothing
        /// was kept from its last run.
        public var audio: AudioSettings
        public var playlist: PlaylistMode
        /// `measure-loudness`: files are measured in the background.
        public var measureLoudness: Bool

        public init(
            feed: String? = nil, cacheFolder: String? = nil, maxSize: String? = nil, feeds: [String: String] = [:],
            audio: AudioSettings = AudioSettings(), playlist: PlaylistMode = PlaylistMode(), measureLoudness: Bool = true
        ) {
            self.measureLoudness = measureLoudness
            self.feed = feed
            self.cacheFolder = cacheFolder
            self.maxSize = maxSize
            self.feeds = feeds
            self.audio = audio
            self.playlist = playlist
        }
    }

    private static let current = Mutex(Values())

    /// The values of a command run inside another process (a test's
    /// in-process run), over the process's own.
    @TaskLocal public static var scoped: Values?

    public static var values: Values { scoped ?? current.withLock { $0 } }

    public static func set(_ values: Values) {
        current.withLock { $0 = values }
    }
}
