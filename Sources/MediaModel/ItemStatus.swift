// The one state model of mediaplay: what an item is doing, as the engine,
// the session, the protocol, `list`, `status`, `play`, browse and scripts all
// report it. Plain data, so that clients need none of the engine.

/// An item's identity: the feed record's `id` (derived from its URL when the
/// feed gives none). Every layer keys items by it; the number a user types
/// is resolved to it once, at the edge (`Feed.item(matching:)`).
public struct ItemKey: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

/// What an item is doing.
public enum ItemState: String, Codable, Sendable, CaseIterable {
    /// Nothing under way (a saved position may say where it would resume).
    case idle
    case downloading
    /// Playing, or starting to (a picture: shown).
    case playing
    /// Paused by itself: the download is slower than the media; it goes on
    /// once enough is buffered.
    case buffering
    case paused
    /// Cut short by a stop (the stop command, a closed window, q, Ctrl-C):
    /// it resumes where it stood.
    case stopped
    /// Played to its end: it plays again from the start.
    case ended
    case failed

    /// Nothing more happens to it without a new command.
    public var isFinal: Bool { self == .stopped || self == .ended || self == .failed }

    /// A player is under way (playing, buffering or paused).
    public var isActive: Bool { self == .playing || self == .buffering || self == .paused }
}

/// One item's state, position and progress.
public struct ItemStatus: Codable, Sendable, Equatable {
    /// Its number in the feed as it is now (what `list` shows).
    public var item: Int
    public var id: ItemKey
    public var title: String
    /// Image, audio or video, by name on the wire (nil for an invalid record).
    public var kind: MediaKind?
    public var state: ItemState
    /// Seconds of media played (or where it will resume).
    public var position: Double
    public var duration: Double?
    /// Download progress, 0...1, while downloading with a known size; how
    /// full the buffer is while buffering.
    public var progress: Double?
    public var error: String?
    /// A stream with no end (internet radio): no length, no seeking.
    public var live: Bool?
    /// A live stream's now-playing line (its ICY `StreamTitle`).
    public var streamTitle: String?
    /// What the player is doing about a problem (a lost stream reconnecting).
    public var notice: String?
    /// The chapter playing, for an item with chapters.
    public var chapter: ChapterStatus?
    /// The loudness gain applied to what plays (ReplayGain or measured).
    public var gain: AppliedGain?
    /// The subtitle showing now (text; nil: none, or a bitmap subtitle).
    public var subtitle: String?
    /// The item's audio and subtitle tracks and the ones chosen, once open.
    public var tracks: TrackStatus?

    public init(
        item: Int, id: ItemKey, title: String, kind: MediaKind?, state: ItemState, position: Double,
        duration: Double? = nil, progress: Double? = nil, error: String? = nil
    ) {
        self.item = item
        self.id = id
        self.title = title
        self.kind = kind
        self.state = state
        self.position = position
        self.duration = duration
        self.progress = progress
        self.error = error
    }
}

/// A change to an item, with its kind kept from where it happened (the
/// player or the download) to the wire: `state` on a change of state,
/// `position` about ten times a second while playing and after a seek,
/// `progress` while downloading or buffering.
public struct ItemEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case state, position, progress
        /// A live stream's title (or notice) changed.
        case metadata
        /// The subtitle showing changed (`subtitle`), or the tracks chosen did.
        case subtitle
    }

    public var event: Kind
    public var status: ItemStatus

    public init(_ event: Kind, _ status: ItemStatus) {
        self.event = event
        self.status = status
    }

    // On the wire, the status's fields with the event's name beside them.
    private enum CodingKeys: String, CodingKey { case event }

    public init(from decoder: any Decoder) throws {
        event = try decoder.container(keyedBy: CodingKeys.self).decode(Kind.self, forKey: .event)
        status = try ItemStatus(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try status.encode(to: encoder)
    }
}

/// The player's settings after a change of the volume, mute, speed or the
/// playlist's modes, from any front end: an `observe` client hears it as
/// `{"event": "settings", "audio": {...}, "playlist": {...}}`, MPRIS and the
/// daemon's store listen to it like any other listener.
public struct SettingsEvent: Codable, Sendable, Equatable {
    public var audio: AudioSettings
    public var playlist: PlaylistMode

    public init(audio: AudioSettings, playlist: PlaylistMode) {
        self.audio = audio
        self.playlist = playlist
    }

    private enum CodingKeys: String, CodingKey { case event, audio, playlist }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .event) == "settings" else {
            throw DecodingError.dataCorruptedError(forKey: .event, in: container, debugDescription: "not a settings event")
        }
        audio = try container.decode(AudioSettings.self, forKey: .audio)
        playlist = try container.decode(PlaylistMode.self, forKey: .playlist)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("settings", forKey: .event)
        try container.encode(audio, forKey: .audio)
        try container.encode(playlist, forKey: .playlist)
    }
}
