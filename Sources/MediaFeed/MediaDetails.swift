/// What probing an item's file found: its length, tags and format. Kept in
/// the cache's index once per file, shown by `list`, `status` and browse.
public struct MediaDetails: Sendable, Equatable, Hashable {
    /// Seconds, when the container says.
    public var duration: Double?
    /// Tags the file carries.
    public var title: String?
    public var artist: String?
    public var album: String?
    /// The decoder's name of the main stream (video when there is one).
    public var codec: String?
    /// Picture size, for video and images.
    public var width: Int?
    public var height: Int?
    /// Samples per second of the audio.
    public var sampleRate: Int?

    public init(
        duration: Double? = nil, title: String? = nil, artist: String? = nil, album: String? = nil,
        codec: String? = nil, width: Int? = nil, height: Int? = nil, sampleRate: Int? = nil
    ) {
        self.duration = duration
        self.title = title
        self.artist = artist
        self.album = album
        self.codec = codec
        self.width = width
        self.height = height
        self.sampleRate = sampleRate
    }
}
