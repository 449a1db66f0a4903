/// Which audio and subtitle track a player takes, as `--aid`, `--sid`,
/// `--alang`, `--slang`, the config's `[playback]` keys and the track
/// commands set them (mpv's options, by the same names).
public struct TrackSettings: Codable, Sendable, Equatable {
    /// A track by its number among its kind (1-based, embedded first, then
    /// files beside the item), or the player's choice, or none.
    public enum Pick: Sendable, Equatable, Hashable, CustomStringConvertible {
        case auto
        case off
        case number(Int)

        /// "auto", "no" (or "off"), or a track's number; nil otherwise.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "auto": self = .auto
            case "no", "off", "none": self = .off
            default:
                guard let number = Int(text), (1...999).contains(number) else { return nil }
                self = .number(number)
            }
        }

        public var description: String {
            switch self {
            case .auto: return "auto"
            case .off: return "no"
            case let .number(number): return String(number)
            }
        }
    }

    public var subtitle: Pick
    public var audio: Pick
    /// Preferred subtitle and audio languages, in order (`en`, `de`, `eng`).
    public var subtitleLanguages: [String]
    public var audioLanguages: [String]
    /// Seconds subtitles show later (positive) or earlier (negative).
    public var subtitleDelay: Double

    /// How far a subtitle may be moved either way.
    public static let delayRange = -600.0...600.0

    public init(subtitle: Pick = .auto, audio: Pick = .auto, subtitleLanguages: [String] = [], audioLanguages: [String] = [], subtitleDelay: Double = 0) {
        self.subtitle = subtitle
        self.audio = audio == .off ? .auto : audio
        self.subtitleLanguages = subtitleLanguages
        self.audioLanguages = audioLanguages
        self.subtitleDelay = subtitleDelay.isFinite ? min(max(subtitleDelay, Self.delayRange.lowerBound), Self.delayRange.upperBound) : 0
    }

    /// "en,de" → ["en", "de"]: a language list as typed.
    public static func languages(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    private enum CodingKeys: String, CodingKey { case subtitle, audio, subtitleLanguages, audioLanguages, subtitleDelay }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func pick(_ key: CodingKeys) throws -> Pick { try container.decodeIfPresent(String.self, forKey: key).flatMap(Pick.init) ?? .auto }
        self.init(
            subtitle: try pick(.subtitle), audio: try pick(.audio),
            subtitleLanguages: try container.decodeIfPresent([String].self, forKey: .subtitleLanguages) ?? [],
            audioLanguages: try container.decodeIfPresent([String].self, forKey: .audioLanguages) ?? [],
            subtitleDelay: try container.decodeIfPresent(Double.self, forKey: .subtitleDelay) ?? 0
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subtitle.description, forKey: .subtitle)
        try container.encode(audio.description, forKey: .audio)
        try container.encode(subtitleLanguages, forKey: .subtitleLanguages)
        try container.encode(audioLanguages, forKey: .audioLanguages)
        try container.encode(subtitleDelay, forKey: .subtitleDelay)
    }
}

import Foundation
