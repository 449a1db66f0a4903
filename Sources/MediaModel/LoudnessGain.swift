import Foundation

/// The gain that evens an item's loudness, and where it came from: `status`
/// shows it (`gain −9.3 dB (measured)`), the audio stage applies `factor`.
public struct AppliedGain: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable {
        /// ReplayGain's track gain.
        case track
        /// ReplayGain's album gain.
        case album
        /// The loudness mediaplay measured.
        case measured
    }

    /// The linear factor every sample is multiplied by.
    public var factor: Double
    public var source: Source

    public init(factor: Double, source: Source) {
        self.factor = factor
        self.source = source
    }

    /// The gain in dB.
    public var decibels: Double { 20 * log10(factor) }

    /// "gain −9.3 dB (measured)", "gain +2.1 dB (album)".
    public var text: String { "gain \(decibelText) (\(source.rawValue))" }

    /// "−9.3 dB measured": for a status line.
    public var brief: String { "\(decibelText) \(source.rawValue)" }

    private var decibelText: String {
        let tenths = (decibels * 10).rounded() / 10
        let sign = tenths > 0 ? "+" : tenths < 0 ? "−" : ""
        return "\(sign)\(String(format: "%.1f", abs(tenths))) dB"
    }

    /// The gain for an item, or nil when nothing applies.
    /// - `tags`: its ReplayGain tags; `measured`: its measured loudness.
    /// - `replayGain`: track or album (auto already resolved by the caller:
    ///   album while a playlist plays in order).
    ///
    /// Tags are applied as ffmpeg's `volume=replaygain=…` applies them: the
    /// chosen gain (the other when it is missing) plus the preamp, and with
    /// clipping prevention at most 1 / peak (a missing peak counts as full
    /// scale, unless the file was measured: then its true peak). A measured
    /// file is brought to the target, its true peak kept below −1 dBTP.
    public static func choose(
        mode: LoudnessMode, replayGain: ReplayGainMode, tags: ReplayGainTags, measured: Loudness?, options: LoudnessOptions
    ) -> AppliedGain? {
        if mode == .on || mode == .tags, replayGain != .off, let fromTags = fromTags(tags, album: replayGain == .album, measured: measured, options: options) {
            return fromTags
        }
        guard mode == .on || mode == .measured, let measured, measured.integrated.isFinite, measured.integrated > -70 else { return nil }
        var decibels = options.target - measured.integrated
        if options.preventClipping, measured.truePeak.isFinite {
            decibels = min(decibels, LoudnessOptions.truePeakCeiling - measured.truePeak)
        }
        decibels = min(max(decibels, -60), 30)
        return AppliedGain(factor: pow(10, decibels / 20), source: .measured)
    }

    private static func fromTags(_ tags: ReplayGainTags, album: Bool, measured: Loudness?, options: LoudnessOptions) -> AppliedGain? {
        let track = tags.trackGain.map { ($0, tags.trackPeak, Source.track) }
        let albumGain = tags.albumGain.map { ($0, tags.albumPeak, Source.album) }
        guard let (gain, peak, source) = album ? (albumGain ?? track) : (track ?? albumGain) else { return nil }
        // In single precision, as libavfilter's volume filter computes it.
        let decibels = Double(Float(gain) / 100_000)
        var factor = pow(10, (decibels + options.preamp) / 20)
        if options.preventClipping {
            let fullScale: Float = peak.map { Float($0) / 100_000 } ?? measured.map { Float(pow(10, $0.truePeak / 20)) } ?? 1
            factor = min(factor, 1 / Double(fullScale))
        }
        return AppliedGain(factor: factor, source: source)
    }
}
