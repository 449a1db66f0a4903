/// How the audio is shaped before it is heard, for every item a player
/// plays (`volume`, `mute`, `play --volume`): the gain (volume N multiplies
/// samples by N/100, as ffplay's software volume and ffmpeg's `volume`
/// filter do) and whether it is muted. Mute keeps the level, so unmuting
/// restores it.
public struct AudioSettings: Codable, Sendable, Equatable {
    public var volume: Int
    public var muted: Bool

    public static let range = 0...150

    public init(volume: Int = 100, muted: Bool = false) {
        self.volume = min(max(volume, Self.range.lowerBound), Self.range.upperBound)
        self.muted = muted
    }

    /// At full volume and unmuted nothing is filtered: output stays
    /// bit-exact with ffmpeg's plain decoding.
    public var isIdentity: Bool { volume == 100 && !muted }
}
