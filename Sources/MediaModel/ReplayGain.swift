import Foundation

/// A file's ReplayGain tags, in the units libavformat keeps them: gains in
/// microbels (1/100000 dB) and peaks in 1/100000 of full scale, so a gain
/// computed here equals the one ffmpeg's `volume=replaygain=…` computes.
public struct ReplayGainTags: Sendable, Equatable, Hashable, Codable {
    public var trackGain: Int32?
    public var trackPeak: UInt32?
    public var albumGain: Int32?
    public var albumPeak: UInt32?

    public init(trackGain: Int32? = nil, trackPeak: UInt32? = nil, albumGain: Int32? = nil, albumPeak: UInt32? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    public var isEmpty: Bool { trackGain == nil && albumGain == nil }

    /// The tags from a file's metadata, looked up by name (any case):
    /// `REPLAYGAIN_TRACK_GAIN` and the rest (ID3 TXXX, Vorbis comments, APE
    /// and MP4 freeform tags all read so), or Opus's `R128_TRACK_GAIN` and
    /// `R128_ALBUM_GAIN` (Q7.8 dB relative to −23 LUFS, so 5 dB more to the
    /// ReplayGain reference of −18 LUFS). Opus's header gain is not a tag:
    /// the decoder applies it, once.
    public static func reading(_ tag: (String) -> String?) -> ReplayGainTags {
        var tags = ReplayGainTags(
            trackGain: tag("REPLAYGAIN_TRACK_GAIN").flatMap(microbels), trackPeak: tag("REPLAYGAIN_TRACK_PEAK").flatMap(peak),
            albumGain: tag("REPLAYGAIN_ALBUM_GAIN").flatMap(microbels), albumPeak: tag("REPLAYGAIN_ALBUM_PEAK").flatMap(peak)
        )
        if tags.trackGain == nil, let r128 = tag("R128_TRACK_GAIN").flatMap(r128Microbels) { tags.trackGain = r128 }
        if tags.albumGain == nil, let r128 = tag("R128_ALBUM_GAIN").flatMap(r128Microbels) { tags.albumGain = r128 }
        return tags
    }

    /// "-6.50 dB" → −650000, read as libavformat reads it (at most five
    /// decimals; what follows the number is ignored); nil when it is no
    /// number or out of range.
    public static func microbels(_ text: String) -> Int32? {
        guard let (whole, fraction, negative) = decimal(text), abs(whole) <= 20_000 else { return nil }
        let value = whole * 100_000 + (negative ? -fraction : fraction)
        return Int32(exactly: value)
    }

    /// "0.988553" → 98855 (1/100000 of full scale); nil for none, a
    /// negative or a silly peak.
    public static func peak(_ text: String) -> UInt32? {
        guard let (whole, fraction, negative) = decimal(text), !negative, whole <= 20_000 else { return nil }
        let value = whole * 100_000 + fraction
        return value > 0 ? UInt32(exactly: value) : nil
    }

    /// An R128 gain ("-1280": −5 dB relative to −23 LUFS) as a ReplayGain
    /// gain in microbels (+5 dB).
    public static func r128Microbels(_ text: String) -> Int32? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let q78 = Int(trimmed), (-32768...32767).contains(q78) else { return nil }
        // Q7.8 → dB exactly (a multiple of 1/256 dB is a whole number of microbels times 0.390625).
        return Int32((Double(q78) / 256 * 100_000).rounded()) + 500_000
    }

    /// The whole part, the first five decimals in 1/100000, and the sign.
    private static func decimal(_ text: String) -> (Int, Int, Bool)? {
        var bytes = Substring(text).utf8.drop { $0 == 0x20 || $0 == 0x09 }
        var negative = false
        if let sign = bytes.first, sign == 0x2D || sign == 0x2B {
            negative = sign == 0x2D
            bytes = bytes.dropFirst()
        }
        let digits = bytes.prefix { (0x30...0x39).contains($0) }
        guard digits.count <= 9 else { return nil }
        bytes = bytes.dropFirst(digits.count)
        var fraction = 0
        var scale = 10_000
        var fractionDigits = 0
        if bytes.first == 0x2E {
            for byte in bytes.dropFirst() {
                guard (0x30...0x39).contains(byte) else { break }
                fractionDigits += 1
                if scale > 0 {
                    fraction += scale * Int(byte - 0x30)
                    scale /= 10
                }
            }
        }
        guard !digits.isEmpty || fractionDigits > 0 else { return nil }
        let whole = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (negative ? -whole : whole, fraction, negative)
    }
}
