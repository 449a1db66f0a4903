/// What a file's sound measures, by EBU R128 (ITU-R BS.1770), as ffmpeg's
/// `ebur128=peak=true` summarises it: measured once per file, kept in the
/// cache index with its other probed details.
public struct Loudness: Codable, Sendable, Equatable, Hashable {
    /// Integrated loudness, LUFS.
    public var integrated: Double
    /// Loudness range, LU.
    public var range: Double
    /// True peak, dBTP (the loudest channel's).
    public var truePeak: Double

    public init(integrated: Double, range: Double, truePeak: Double) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
    }
}

/// Where the gain that evens loudness between items comes from
/// (`--loudness`, `[playback] loudness`, `loudness cycle`).
public enum LoudnessMode: String, Codable, Sendable, CaseIterable {
    /// Nothing: the file plays at the level it was mastered at.
    case off
    /// ReplayGain tags only.
    case tags
    /// The measured loudness only.
    case measured
    /// Tags where a file has them, else its measured loudness.
    case on

    /// The next in `cycle`'s order: on → tags → measured → off → on.
    public var next: LoudnessMode {
        switch self {
        case .on: return .tags
        case .tags: return .measured
        case .measured: return .off
        case .off: return .on
        }
    }
}

/// Which ReplayGain tag applies (`--replaygain`): `auto` is the album's
/// gain while a playlist plays in order, the track's under shuffle or for a
/// single item (cmus's "smart").
public enum ReplayGainMode: String, Codable, Sendable, CaseIterable {
    case off, track, album, auto
}

/// The fixed part of loudness normalisation, from the command line or
/// config.toml: the ReplayGain pre-amplification, clipping prevention, and
/// the level a measured file is brought to.
public struct LoudnessOptions: Sendable, Equatable {
    /// dB added to a ReplayGain tag's gain (−15 to 15).
    public var preamp: Double
    /// Lower the gain so the peak stays below full scale (tags), or
    /// below −1 dBTP (a measured true peak).
    public var preventClipping: Bool
    /// LUFS a measured file is brought to (−70 to 0); −18 is the
    /// ReplayGain 2.0 reference.
    public var target: Double

    public static let preamps = -15.0...15.0
    public static let targets = -70.0...0.0
    /// The highest true peak normalisation lets a measured file reach.
    public static let truePeakCeiling = -1.0

    public init(preamp: Double = 0, preventClipping: Bool = true, target: Double = -18) {
        self.preamp = preamp
        self.preventClipping = preventClipping
        self.target = target
    }
}
