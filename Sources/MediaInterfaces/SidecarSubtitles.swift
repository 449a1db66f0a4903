import Foundation

/// Subtitle files beside a local item (MediaEngine finds them), and the
/// feed's, as a player is given them.
public enum SidecarSubtitles {
    /// A subtitle file and the language its name says.
    public struct File: Sendable, Equatable {
        public var path: String
        public var language: String?

        public init(path: String, language: String? = nil) {
            self.path = path
            self.language = language
        }
    }

    /// The language a subtitle file's name gives (`film.de.srt` → "de").
    public static func language(of path: String) -> String? {
        let parts = (path as NSString).lastPathComponent.split(separator: ".")
        guard parts.count >= 3 else { return nil }
        return languageCode(parts[parts.count - 2])
    }

    package static func languageCode(_ part: Substring) -> String? {
        guard (2...8).contains(part.count), part.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-" || $0 == "_") }) else { return nil }
        return part.lowercased()
    }
}
