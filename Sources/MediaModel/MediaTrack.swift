/// An audio or subtitle track of an item: in its file, or a subtitle file
/// beside it. `list --json` lists them once probed; `status` names the
/// ones playing.
public struct MediaTrack: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case audio, subtitle
    }

    public var kind: Kind
    /// Its number among its kind, from 1 (`--aid`, `--sid`, `subtitle N`).
    public var number: Int
    /// The language its file names (ISO 639: "en", "eng", "de"), if any.
    public var language: String?
    /// Its title, if the file gives one.
    public var title: String?
    /// The codec's name ("subrip", "mov_text", "ass", "hdmv_pgs_subtitle", "aac").
    public var codec: String
    /// A subtitle drawn as pictures (PGS, DVB, VobSub), not text.
    public var isBitmap: Bool
    /// The file it comes from when not the item's own (a sidecar's name).
    public var file: String?

    public init(kind: Kind, number: Int, language: String? = nil, title: String? = nil, codec: String, isBitmap: Bool = false, file: String? = nil) {
        self.kind = kind
        self.number = number
        self.language = language
        self.title = title
        self.codec = codec
        self.isBitmap = isBitmap
        self.file = file
    }

    /// "2 (de, Commentary)", "1 (en, movie.en.srt)": how status names it.
    public var line: String {
        let about = [language, title ?? file].compactMap { $0 }.filter { !$0.isEmpty }
        return about.isEmpty ? "\(number)" : "\(number) (\(about.joined(separator: ", ")))"
    }
}

/// The tracks of what plays, and the ones chosen (nil: none).
public struct TrackStatus: Codable, Sendable, Equatable {
    public var audio: [MediaTrack]
    public var subtitles: [MediaTrack]
    /// Numbers of the tracks playing (nil: none, or subtitles hidden).
    public var audioTrack: Int?
    public var subtitleTrack: Int?
    /// Seconds subtitles are moved by (`sub-delay`).
    public var subtitleDelay: Double
    /// Why the chosen subtitle track shows nothing: it could not be read, or
    /// it is past what a player takes (`SubtitleLimits`).
    public var subtitleError: String?

    public init(audio: [MediaTrack] = [], subtitles: [MediaTrack] = [], audioTrack: Int? = nil, subtitleTrack: Int? = nil, subtitleDelay: Double = 0, subtitleError: String? = nil) {
        self.audio = audio
        self.subtitles = subtitles
        self.audioTrack = audioTrack
        self.subtitleTrack = subtitleTrack
        self.subtitleDelay = subtitleDelay
        self.subtitleError = subtitleError
    }

    /// "audio 1 (en) · subtitles 2 (de) · delay +0.3 s", the kinds the item has.
    public var line: String {
        var parts: [String] = []
        if audio.count > 1, let number = audioTrack, let track = audio.first(where: { $0.number == number }) {
            parts.append("audio \(track.line) of \(audio.count)")
        }
        if !subtitles.isEmpty {
            if let number = subtitleTrack, let track = subtitles.first(where: { $0.number == number }) {
                parts.append("subtitles \(track.line) of \(subtitles.count)")
                if let subtitleError { parts.append(subtitleError) }
            } else {
                parts.append("subtitles off (\(subtitles.count))")
            }
        }
        // The delay is said only where there are subtitles to move.
        if subtitleDelay != 0, !subtitles.isEmpty {
            parts.append("sub delay \(subtitleDelay > 0 ? "+" : "−")\(String(format: "%.1f", abs(subtitleDelay))) s")
        }
        return parts.joined(separator: " · ")
    }
}

import Foundation
