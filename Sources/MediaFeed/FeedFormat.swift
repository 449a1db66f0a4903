import Foundation
import MediaModel

/// What a feed's bytes are, told by their content, never by a file name:
/// a podcast's RSS is often served as `feed` or `.php`, a playlist as `.txt`.
enum FeedFormat: Equatable {
    /// Our JSON or JSON Feed (`{` or `[`).
    case json
    /// RSS or Atom (`<`).
    case xml
    /// M3U or M3U8: `#EXTM3U`, or lines that name media files or URLs.
    case m3u
    /// PLS: `[playlist]`.
    case pls
    /// Anything else, with what it starts with, quoted and made safe.
    case unknown(String)

    static let readable = "mediaplay reads JSON (its own or JSON Feed), RSS, Atom, M3U and PLS, and folders of media"

    static func detect(_ bytes: [UInt8]) -> FeedFormat {
        var start = 0
        // A UTF-8 byte order mark, then white space.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return .json }  // empty: the JSON reader says so
        // "<?xm" in EBCDIC: libxml2 reads it, or says in one line why not.
        if bytes.starts(with: [0x4C, 0x6F, 0xA7, 0x94]) { return .xml }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return .json  // not a feed, but the JSON reader says why
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // "[playlist]" is PLS, not a JSON array.
            if lowercasedLine(bytes, from: start).hasPrefix("[playlist]") { return .pls }
            return .json
        case UInt8(ascii: "<"):
            return .xml
        default:
            break
        }
        let first = lowercasedLine(bytes, from: start)
        if first.hasPrefix("#extm3u") { return .m3u }
        // A plain M3U: its first entry (after comments) names a URL or a media file.
        var offset = start
        while offset < bytes.count {
            let line = lowercasedLine(bytes, from: offset)
            let length = lineLength(bytes, from: offset)
            defer { offset += length + 1 }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if looksLikeMedia(trimmed) { return .m3u }
            break
        }
        return .unknown(quoted(bytes, from: start))
    }

    /// A playlist line that names media: a URL, or a path with a media extension.
    static func looksLikeMedia(_ line: String) -> Bool {
        if line.contains("://") { return true }
        let ext = FolderFeed.pathExtension(line).lowercased()
        return MediaKind.guess(fromExtension: ext) != nil
    }

    private static func lineLength(_ bytes: [UInt8], from start: Int) -> Int {
        var end = start
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        return end - start
    }

    private static func lowercasedLine(_ bytes: [UInt8], from start: Int) -> String {
        let end = start + min(lineLength(bytes, from: start), 200)
        return String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
    }

    /// The first line as a user can read it: at most 20 characters,
    /// controls and bytes that are not UTF-8 escaped (`\xFF`), never shown raw.
    static func quoted(_ bytes: [UInt8], from start: Int) -> String {
        var visible = ""
        var shown = 0
        var index = start
        while index < bytes.count, bytes[index] != 0x0A, shown < 20 {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3 : lead >= 0xF0 && lead < 0xF5 ? 4 : 0
            var scalar: Unicode.Scalar?
            if length > 0, index + length <= bytes.count {
                var iterator = bytes[index..<index + length].makeIterator()
                var decoder = UTF8()
                if case let .scalarValue(value) = decoder.decode(&iterator) { scalar = value }
            }
            if let scalar, !(scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)) {
                visible.unicodeScalars.append(scalar)
                index += length
            } else if let scalar {
                visible += String(format: "\\x%02X", scalar.value)
                index += length
            } else {
                visible += String(format: "\\x%02X", lead)
                index += 1
            }
            shown += 1
        }
        let more = index < bytes.count && bytes[index] != 0x0A
        return "\"\(visible)\(more ? "…" : "")\""
    }
}

extension MediaKind {
    /// The kind a file name's extension suggests; nil for other files.
    public static func guess(fromExtension ext: String) -> MediaKind? {
        switch ext.lowercased() {
        case "mp3", "m4a", "m4b", "aac", "ogg", "oga", "opus", "flac", "wav", "wv", "ape", "mka", "aiff", "aif", "wma", "alac", "mpc", "spx", "ac3", "dts":
            return .audio
        case "mp4", "m4v", "mkv", "webm", "mov", "avi", "ogv", "wmv", "flv", "mpg", "mpeg", "ts", "m2ts", "3gp":
            return .video
        case "jpg", "jpeg", "png", "gif", "webp", "bmp", "tif", "tiff", "avif", "heic":
            return .image
        default:
            return nil
        }
    }

    /// The kind a MIME type names (`audio/mpeg`, `video/mp4`, `image/jpeg`).
    public static func guess(fromMIME mime: String) -> MediaKind? {
        let lower = mime.trimmedOfWhitespace.lowercased()
        if lower.hasPrefix("audio/") { return .audio }
        if lower.hasPrefix("video/") { return .video }
        if lower.hasPrefix("image/") { return .image }
        return nil
    }

    /// From a MIME type when it names a kind, else from the URL's extension.
    static func guess(mime: String?, url: MediaSource?) -> MediaKind? {
        if let mime, let kind = guess(fromMIME: mime) { return kind }
        switch url {
        case let .remote(address)?: return guess(fromExtension: address.pathExtension)
        case let .file(path)?: return guess(fromExtension: FolderFeed.pathExtension(path))
        case nil: return nil
        }
    }
}
