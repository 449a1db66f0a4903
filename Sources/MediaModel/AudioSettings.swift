/// How the audio is shaped before it is heard, for every item a player
/// plays (`volume`, `mute`, `speed`, `play --volume --speed`): the gain (volume N multiplies
/// samples by N/100, as ffplay's software volume and ffmpeg's `volume`
/// filter do) and whether it is muted. Mute keeps the level, so unmuting
/// restores it.
public struct AudioSettings: Codable, Sendable, Equatable {
    public var volume: Int
    public var muted: Bool
    /// Playback speed with the pitch kept (ffmpeg's `atempo`), 0.25–4.
    public var speed: Double
    /// Where the gain that evens loudness between items comes from.
    public var loudness: LoudnessMode
    /// Which ReplayGain tag applies (`auto` is resolved per item by the
    /// session: see `forPlayback`).
    public var replayGain: ReplayGainMode

    public static let range = 0...150
    public static let speeds = 0.25...4.0

    public init(volume: Int = 100, muted: Bool = false, speed: Double = 1, loudness: LoudnessMode = .on, replayGain: ReplayGainMode = .auto) {
        self.volume = min(max(volume, Self.range.lowerBound), Self.range.upperBound)
        self.muted = muted
        self.speed = speed.isFinite ? min(max(speed, Self.speeds.lowerBound), Self.speeds.upperBound) : 1
        self.loudness = loudness
        self.replayGain = replayGain
    }

    // A setting kept before speed or loudness existed reads as speed 1,
    // loudness on, ReplayGain auto.
    private enum CodingKeys: String, CodingKey { case volume, muted, speed, loudness, replayGain }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            volume: try container.decode(Int.self, forKey: .volume), muted: try container.decode(Bool.self, forKey: .muted),
            speed: try container.decodeIfPresent(Double.self, forKey: .speed) ?? 1,
            loudness: try container.decodeIfPresent(LoudnessMode.self, forKey: .loudness) ?? .on,
            replayGain: try container.decodeIfPresent(ReplayGainMode.self, forKey: .replayGain) ?? .auto
        )
    }

    /// What a player is handed: ReplayGain's `auto` made the album's gain
    /// while a playlist plays in order, the track's under shuffle or for a
    /// single item (cmus's "smart").
    public func forPlayback(inAlbumOrder: Bool) -> AudioSettings {
        guard replayGain == .auto else { return self }
        var resolved = self
        resolved.replayGain = inAlbumOrder ? .album : .track
        return resolved
    }

    /// At full volume, unmuted and at speed 1 nothing is filtered: output
    /// stays bit-exact with ffmpeg's plain decoding (loudness aside: a
    /// player knows the gain it applies).
    public var isIdentity: Bool { volume == 100 && !muted && speed == 1 }
}

extension AudioSettings {
    /// `🔊 volume 80 %`, or `🔇 muted (volume 80 %)`; then the speed when it
    /// is not 1, and the loudness mode when it is not on: the one line every
    /// front end shows for them.
    public var line: String {
        var line = muted ? "🔇 muted (volume \(volume) %)" : "🔊 volume \(volume) %"
        if speed != 1 { line += " · speed \(SpeedText.text(speed))" }
        if loudness != .on { line += " · loudness \(loudness.rawValue)" }
        return line
    }
}

/// `1.5×`, `0.75×`, `2×`: a speed as players show it.
public enum SpeedText {
    public static func text(_ speed: Double) -> String {
        let hundredths = CheckedNumber.clamped(speed * 100, to: 0...1_000_000)
        let whole = hundredths / 100, fraction = hundredths % 100
        if fraction == 0 { return "\(whole)×" }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)×" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)×"
    }
}
