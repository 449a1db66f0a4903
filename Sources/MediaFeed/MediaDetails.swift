import MediaModel
import MediaTerminal

/// What probing an item's file found: its length, tags and format. Kept in
/// the cache's index once per file, shown by `list`, `status` and browse.
public struct MediaDetails: Sendable, Equatable, Hashable, Codable {
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
    /// The track and disc numbers the tags give ("3/12" is 3): a folder's
    /// album plays in this order.
    public var track: Int?
    public var disc: Int?
    /// The file carries a picture of its own (an audio file's cover art).
    public var hasCover = false
    /// The container's chapters.
    public var chapters: [Chapter] = []
    /// The sound's loudness, once measured (in the background, once per file).
    public var loudness: Loudness?
    /// Whether the file was measured (a file with no sound measures nothing
    /// and is not measured again).
    public var measured = false
    /// The file's audio and subtitle tracks (nil: probed before tracks were).
    public var tracks: [MediaTrack]?

    public init(
        duration: Double? = nil, title: String? = nil, artist: String? = nil, album: String? = nil,
        codec: String? = nil, width: Int? = nil, height: Int? = nil, sampleRate: Int? = nil,
        track: Int? = nil, disc: Int? = nil, hasCover: Bool = false
    ) {
        self.duration = duration
        self.title = title
        self.artist = artist
        self.album = album
        self.codec = codec
        self.width = width
        self.height = height
        self.sampleRate = sampleRate
        self.track = track
        self.disc = disc
        self.hasCover = hasCover
    }

    /// A track or disc tag's number: "3", "03" or "3/12" is 3; anything
    /// else (or a number past any album's) is none.
    public static func tagNumber(_ text: String) -> Int? {
        let digits = text.trimmingCharacters(in: .whitespaces).prefix { $0 != "/" }.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits) else { return nil }
        return number
    }
}

extension MediaDetails {
    /// `3:20 · "Song" — The Artist — An Album · h264 1280×720 · 44100 Hz`:
    /// what the file says of itself, on one line (browse's detail view,
    /// `status`); nil when it says nothing.
    public var line: String? {
        var parts: [String] = []
        if let duration { parts.append(formatDuration(duration)) }
        let credits = [title.map { "\"\($0)\"" }, artist, album].compactMap { $0.map(DisplayWidth.singleLine) }
        if !credits.isEmpty { parts.append(credits.joined(separator: " — ")) }
        var format = codec ?? ""
        if let width, let height { format += " \(width)×\(height)" }
        if !format.isEmpty { parts.append(format.trimmingCharacters(in: .whitespaces)) }
        if let sampleRate { parts.append("\(sampleRate) Hz") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
