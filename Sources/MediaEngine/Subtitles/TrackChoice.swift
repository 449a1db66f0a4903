import Foundation
import MediaModel

/// Which track of a kind plays: the one asked for by number, else (auto)
/// the first in a preferred language — the user's list, then `LANG`'s —
/// else the first there is (mpv's `--sid`, `--slang`, `--aid`, `--alang`).
enum TrackChoice {
    /// The index into `tracks` to play; nil for none (`no`, or none there).
    static func choose(_ pick: TrackSettings.Pick, languages: [String], among tracks: [MediaTrack], defaultIndex: Int? = nil) -> Int? {
        guard !tracks.isEmpty else { return nil }
        switch pick {
        case .off: return nil
        case let .number(number): return tracks.firstIndex { $0.number == number }
        case .auto:
            for wanted in languages + [userLanguage].compactMap({ $0 }) {
                if let index = tracks.firstIndex(where: { matches($0.language, wanted) }) { return index }
            }
            return defaultIndex ?? 0
        }
    }

    /// Whether a track's language is `wanted`: ISO 639-1 and -2 both
    /// ("en" is "eng"), a region ignored ("pt-BR" is "pt").
    static func matches(_ language: String?, _ wanted: String) -> Bool {
        guard let language = language?.lowercased() else { return false }
        let have = normalised(language), want = normalised(wanted.lowercased())
        return have == want
    }

    private static func normalised(_ code: String) -> String {
        let head = String(code.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? Substring(code))
        return threeLetter[head] ?? head
    }

    /// The user's language from `LANG` ("de_DE.UTF-8" → "de"); none for C and POSIX.
    static var userLanguage: String? {
        let environment = ProcessInfo.processInfo.environment
        guard let value = environment["LC_ALL"].flatMap({ $0.isEmpty ? nil : $0 }) ?? environment["LC_MESSAGES"].flatMap({ $0.isEmpty ? nil : $0 }) ?? environment["LANG"],
              let head = value.split(whereSeparator: { $0 == "_" || $0 == "." || $0 == "@" }).first, head.count >= 2, head != "C", head != "POSIX"
        else { return nil }
        return String(head).lowercased()
    }

    /// ISO 639-2 (bibliographic and terminology) codes of the common
    /// languages, to their 639-1 code.
    private static let threeLetter: [String: String] = [
        "eng": "en", "ger": "de", "deu": "de", "fre": "fr", "fra": "fr", "spa": "es", "ita": "it", "por": "pt", "dut": "nl", "nld": "nl",
        "rus": "ru", "jpn": "ja", "chi": "zh", "zho": "zh", "kor": "ko", "ara": "ar", "pol": "pl", "swe": "sv", "nor": "no", "dan": "da",
        "fin": "fi", "tur": "tr", "gre": "el", "ell": "el", "heb": "he", "hin": "hi", "cze": "cs", "ces": "cs", "hun": "hu", "ukr": "uk",
    ]
}
