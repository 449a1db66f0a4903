import Foundation
import MediaModel
import MediaTerminal

/// Where a feed was read from; relative item URLs resolve against it.
public enum FeedOrigin: Sendable, Hashable {
    /// A local file; relative paths resolve against its folder.
    case file(path: String)
    /// An http(s) URL; relative URLs resolve against it, and `file` URLs are
    /// refused, so a feed from the network cannot point at local files.
    case remote(URL)
    /// Bytes from elsewhere (tests, stdin): relative paths resolve against the
    /// current directory.
    case unknown

    /// A name for the feed when it has no title of its own.
    var fallbackTitle: String {
        switch self {
        case let .file(path): return (path as NSString).lastPathComponent
        case let .remote(url): return url.lastPathComponent.isEmpty ? (url.host ?? "feed") : url.lastPathComponent
        case .unknown: return "feed"
        }
    }
}

/// A feed that cannot be read at all (as opposed to a bad record in it).
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var position: SourcePosition
    public var message: String

    public init(position: SourcePosition, message: String) {
        self.position = position
        self.message = message
    }

    /// `line:column: message`; the caller puts the file name in front.
    public var description: String { "\(position): \(message)" }
}

/// Turns the bytes of a feed (docs/FEED.md) into a `Feed`.
public enum FeedDecoder {
    /// Far beyond any feed a person keeps (100,000 items read in about a second).
    public static let maximumItems = 250_000

    /// Any format mediaplay reads, told by its content (not its name):
    /// our JSON, JSON Feed, RSS, Atom, M3U or PLS (docs/FEED.md).
    public static func decode(_ bytes: [UInt8], origin: FeedOrigin = .unknown) throws(FeedError) -> Feed {
        // UTF-16 and UTF-32 become UTF-8 first: every reader reads UTF-8.
        let text = try UnicodeText.utf8(bytes)
        let bytes = text.bytes
        switch FeedFormat.detect(bytes) {
        case .json: return try decodeJSON(bytes, origin: origin)
        case .xml: return try PodcastReader.decode(bytes, origin: origin, transcoded: text.transcodedFrom != nil)
        case .m3u: return try PlaylistReader.m3u(bytes, origin: origin)
        case .pls: return try PlaylistReader.pls(bytes, origin: origin)
        case let .unknown(seen):
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "not a feed mediaplay reads (it starts with \(seen)); \(FeedFormat.readable)")
        }
    }

    private static func decodeJSON(_ bytes: [UInt8], origin: FeedOrigin) throws(FeedError) -> Feed {
        let root: JSONValue.Located
        let text = TextPositions(bytes)
        do {
            root = try JSONParser.parse(bytes, maximumArrayLength: maximumItems)
        } catch {
            throw FeedError(position: error.position, message: error.message)
        }
        if JSONFeedReader.isJSONFeed(root.value) {
            return try JSONFeedReader.decode(root, text: text, origin: origin)
        }

        var title: String?
        let records: [JSONValue.Located]
        var rowShape = false
        switch root.value {
        case let .array(elements):
            records = elements
        case .object where root.value["items"] == nil && root.value["rows"] != nil:
            // The facts-feed shape (docs/FEED.md): {"title", "rows": [{"title", "description", "imageHref"}]}.
            let rowsValue = root.value["rows"]!
            if case let .string(text)? = root.value["title"]?.value { title = text }
            switch rowsValue.value {
            case let .array(elements): records = elements
            case .null: records = []
            default:
                throw FeedError(position: text.position(of: rowsValue.offset), message: "the feed's \"rows\" must be an array, not \(rowsValue.value.typeName)")
            }
            rowShape = true
        case .object:
            if let titleValue = root.value["title"] {
                switch titleValue.value {
                case let .string(text): title = text
                case .null: break
                default:
                    throw FeedError(position: text.position(of: titleValue.offset), message: "the feed's \"title\" must be a string, not \(titleValue.value.typeName)")
                }
            }
            guard let itemsValue = root.value["items"] else {
                throw FeedError(position: text.position(of: root.offset), message: "the feed object has no \"items\" array")
            }
            guard case let .array(elements) = itemsValue.value else {
                throw FeedError(position: text.position(of: itemsValue.offset), message: "the feed's \"items\" must be an array, not \(itemsValue.value.typeName)")
            }
            records = elements
        default:
            throw FeedError(position: text.position(of: root.offset), message: "a feed is a JSON object with \"items\" or an array of items, not \(root.value.typeName)")
        }

        // Every record's line and column in one pass (records come in file order).
        let locations = text.positions(of: records.map(\.offset))
        var notes: [String] = []
        let drafts: [FeedDraft]
        if rowShape {
            var kept: [FeedDraft] = []
            for (offset, record) in records.enumerated() {
                if let draft = rowDraft(record, position: kept.count + 1, location: locations[offset], origin: origin) {
                    kept.append(draft)
                } else {
                    notes.append("row \(offset + 1) at line \(locations[offset].line) has no title, description or image; skipped")
                }
            }
            drafts = kept
        } else {
            // By index: a map over indices knows its count (enumerated() grew
            // and copied the array as it went).
            drafts = records.indices.map { offset in
                draft(records[offset], position: offset + 1, location: locations[offset], origin: origin)
            }
        }
        let items = items(from: drafts)
        let feedTitle = title.map { $0.trimmedOfWhitespace }.flatMap { $0.isEmpty ? nil : $0 }
        var feed = Feed(title: feedTitle ?? origin.fallbackTitle, items: items)
        feed.notes = notes
        return feed
    }

    // MARK: - Records

    /// Items from drafts: explicit ids checked for duplicates, the others
    /// derived from the URL; titles derived where the record has none.
    static func items(from drafts: consuming [FeedDraft]) -> [FeedItem] {

        // Explicit ids first, so that a derived id never takes one a user wrote.
        var owners: [String: Int] = [:]
        owners.reserveCapacity(drafts.count)
        for index in drafts.indices {
            guard let id = drafts[index].explicitID else { continue }
            if let first = owners[id] {
                drafts[index].problem = drafts[index].problem ?? "duplicate id \"\(id)\" (item \(first) has it too)"
            } else {
                owners[id] = drafts[index].position
            }
        }

        return drafts.indices.map { index in item(drafts[index], owners: &owners) }
    }

    private static func item(_ draft: FeedDraft, owners: inout [String: Int]) -> FeedItem {
        let id: String
        if let explicit = draft.explicitID, owners[explicit] == draft.position {
            id = explicit
        } else {
            id = derivedID(for: draft, taken: &owners)
        }
        let title = draft.title ?? derivedTitle(for: draft)
        var item = FeedItem(
            position: draft.position, id: id, title: title, kind: draft.kind,
            source: draft.problem == nil ? draft.source : nil,
            description: draft.description, thumbnail: draft.thumbnail,
            invalidReason: draft.problem, location: draft.location,
            duration: draft.duration, published: draft.published
        )
        item.titleIsDerived = draft.title == nil
        item.chapters = draft.chapters
        item.chaptersURL = draft.chaptersURL
        item.subtitles = draft.subtitles
        return item
    }

    /// A row of the facts-feed shape: a picture with a title and a
    /// description, any of them null. A row with an image is an image item;
    /// one with only words is a text-only item (no source, still valid); an
    /// empty row is nil (skipped, with a note).
    private static func rowDraft(_ record: JSONValue.Located, position: Int, location: SourcePosition, origin: FeedOrigin) -> FeedDraft? {
        var draft = FeedDraft(position: position, location: location)
        draft.kind = .image
        guard case .object = record.value else {
            if case .null = record.value { return nil }
            draft.problem = "the row is \(record.value.typeName), not an object"
            return draft
        }
        func text(_ key: String) -> String? {
            guard case let .string(value)? = record.value[key]?.value else { return nil }
            let trimmed = value.trimmedOfWhitespace
            return trimmed.isEmpty ? nil : trimmed
        }
        draft.title = text("title")
        draft.description = text("description")
        let image = text("imageHref")
        if draft.title == nil && draft.description == nil && image == nil { return nil }
        if let image {
            switch resolve(image, origin: origin) {
            case let .success(source): draft.source = source
            case let .failure(problem): draft.problem = "imageHref: \(problem.message)"
            }
        }
        return draft
    }

    private static func draft(_ record: JSONValue.Located, position: Int, location: SourcePosition, origin: FeedOrigin) -> FeedDraft {
        var draft = FeedDraft(position: position, location: location)
        guard case .object = record.value else {
            draft.problem = "the record is \(record.value.typeName), not an object"
            return draft
        }
        let fields = record.value
        // Collect every problem's first occurrence; the first one is the reason shown.
        var problems: [String] = []

        if let value = fields["title"] {
            switch value.value {
            case let .string(text):
                let trimmed = text.trimmedOfWhitespace
                draft.title = trimmed.isEmpty ? nil : trimmed
            case .null: break
            default: problems.append("\"title\" must be a string, not \(value.value.typeName)")
            }
        }

        switch fields["type"]?.value {
        case nil, .null?:
            problems.append("missing \"type\" (\"image\", \"audio\" or \"video\")")
        case let .number(text)?:
            if let number = Double(text), let whole = Int(exactly: number), let kind = MediaKind(rawValue: whole) {
                draft.kind = kind
            } else {
                problems.append("unknown type \(text) (expected 0 image, 1 audio, 2 video)")
            }
        case let .string(text)?:
            let name = text.trimmedOfWhitespace.lowercased()
            if let kind = MediaKind(name: name) ?? Int(name).flatMap(MediaKind.init(rawValue:)) {
                draft.kind = kind
            } else {
                problems.append("unknown type \"\(text)\" (expected \"image\", \"audio\" or \"video\", or 0, 1, 2)")
            }
        case let other?:
            problems.append("\"type\" must be \"image\", \"audio\" or \"video\" (or 0, 1, 2), not \(other.typeName)")
        }

        switch fields["url"]?.value {
        case nil, .null?:
            problems.append("missing \"url\"")
        case let .string(text)?:
            switch resolve(text, origin: origin) {
            case let .success(source): draft.source = source
            case let .failure(problem): problems.append("url: \(problem.message)")
            }
        case let other?:
            problems.append("\"url\" must be a string, not \(other.typeName)")
        }

        if let value = fields["id"] {
            switch value.value {
            case let .string(text):
                let trimmed = text.trimmedOfWhitespace
                if trimmed.isEmpty { problems.append("\"id\" is empty") } else { draft.explicitID = trimmed }
            case let .number(text):
                draft.explicitID = text
            case .null: break
            default: problems.append("\"id\" must be a string or a number, not \(value.value.typeName)")
            }
        }

        if let value = fields["description"] {
            switch value.value {
            case let .string(text): draft.description = text.isEmpty ? nil : text
            case .null: break
            default: problems.append("\"description\" must be a string, not \(value.value.typeName)")
            }
        }

        if let value = fields["thumbnail"] {
            switch value.value {
            case let .string(text) where !text.isEmpty:
                switch resolve(text, origin: origin) {
                case let .success(source): draft.thumbnail = source
                case let .failure(problem): problems.append("thumbnail: \(problem.message)")
                }
            case .string, .null: break
            default: problems.append("\"thumbnail\" must be a string, not \(value.value.typeName)")
            }
        }

        // `subtitles`: a URL, or a list of URLs or of {"url", "language"}.
        if let value = fields["subtitles"] {
            func link(_ entry: JSONValue) {
                switch entry {
                case let .string(text) where !text.isEmpty:
                    switch resolve(text, origin: origin) {
                    case let .success(source): draft.subtitles.append(SubtitleLink(source: source))
                    case let .failure(problem): problems.append("subtitles: \(problem.message)")
                    }
                case .object:
                    guard case let .string(text)? = entry["url"]?.value, !text.isEmpty else {
                        problems.append("each of \"subtitles\" needs a \"url\"")
                        return
                    }
                    switch resolve(text, origin: origin) {
                    case let .success(source):
                        var language: String?
                        if case let .string(code)? = entry["language"]?.value { language = DisplayWidth.singleLine(code).lowercased() }
                        draft.subtitles.append(SubtitleLink(source: source, language: language.flatMap { $0.isEmpty ? nil : $0 }))
                    case let .failure(problem): problems.append("subtitles: \(problem.message)")
                    }
                default: problems.append("\"subtitles\" takes URLs or {\"url\", \"language\"}, not \(entry.typeName)")
                }
            }
            switch value.value {
            case let .array(entries): entries.prefix(100).forEach { link($0.value) }
            case .null: break
            default: link(value.value)
            }
        }

        draft.problem = problems.first
        return draft
    }

    // MARK: - URLs

    struct URLProblem: Error {
        var message: String
    }

    /// Turns a record's `url` text into a source: an http(s) URL, or an
    /// absolute file path (from a `file:` URL or a path, relative ones resolved
    /// against the feed's folder).
    static func resolve(_ text: String, origin: FeedOrigin) -> Result<MediaSource, URLProblem> {
        let trimmed = text.trimmedOfWhitespace
        guard !trimmed.isEmpty else { return .failure(URLProblem(message: "empty")) }

        if let scheme = schemeOf(trimmed) {
            switch scheme {
            case "http", "https":
                guard hasAuthority(trimmed), let url = URL(string: trimmed) else {
                    return .failure(URLProblem(message: "\"\(trimmed)\" is not a usable \(scheme) URL"))
                }
                return .success(.remote(url))
            case "file":
                if case .remote = origin {
                    return .failure(URLProblem(message: "a feed from the network cannot point at local files (\(trimmed))"))
                }
                guard let url = URL(string: trimmed), url.host == nil || url.host == "" || url.host == "localhost" else {
                    return .failure(URLProblem(message: "\"\(trimmed)\" is not a usable local file URL"))
                }
                let path = url.path
                guard path.hasPrefix("/") else {
                    return .failure(URLProblem(message: "\"\(trimmed)\" is not a usable local file URL"))
                }
                return .success(.file(path))
            default:
                return .failure(URLProblem(message: "unsupported scheme \"\(scheme)\" (use http, https or file)"))
            }
        }

        // No scheme: a path (or, in a remote feed, a relative URL).
        switch origin {
        case let .remote(base):
            guard let url = URL(string: trimmed, relativeTo: base)?.absoluteURL, let host = url.host, !host.isEmpty else {
                return .failure(URLProblem(message: "\"\(trimmed.redactingUserinfo)\" cannot be resolved against \(base.absoluteString.redactingUserinfo)"))
            }
            return .success(.remote(url))
        case let .file(feedPath):
            if trimmed.hasPrefix("/") { return .success(.file(standardized(trimmed))) }
            let folder = (feedPath as NSString).deletingLastPathComponent
            let base = folder.isEmpty ? FileManager.default.currentDirectoryPath : folder
            return .success(.file(standardized((absolute(base) as NSString).appendingPathComponent(trimmed))))
        case .unknown:
            if trimmed.hasPrefix("/") { return .success(.file(standardized(trimmed))) }
            return .success(.file(standardized((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(trimmed))))
        }
    }

    /// Whether `text` (`scheme:…`) names a host: "//" after the colon, then
    /// something before the path other than user info and a port. Read from
    /// the bytes: asking the parsed URL for its host parsed it again, a
    /// sixth of reading a large feed.
    public static func hasAuthority(_ text: String) -> Bool {
        // Read in place (a feed's every enclosure passes here).
        var text = text
        return text.withUTF8 { bytes in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
            var rest = bytes[(colon + 1)...]
            guard rest.count >= 2, rest[colon + 1] == UInt8(ascii: "/"), rest[colon + 2] == UInt8(ascii: "/") else { return false }
            rest = rest.dropFirst(2)
            let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            let afterUser = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[($0 + 1)...] } ?? authority
            // A port follows the last colon, unless it is inside an IPv6 literal.
            var host = afterUser
            if let portColon = afterUser.lastIndex(of: UInt8(ascii: ":")), !afterUser[portColon...].contains(UInt8(ascii: "]")) {
                host = afterUser[..<portColon]
            }
            return !host.isEmpty
        }
    }

    /// The URL scheme of `text` (lowercased), if it has one per RFC 3986.
    public static func schemeOf(_ text: String) -> String? {
        // A scheme is a letter, then letters, digits, "+", "-" or "." up to the colon; read as bytes.
        var scheme: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: ":") { return scheme.isEmpty ? nil : String(decoding: scheme, as: UTF8.self) }
            let lower = byte | 0x20
            let isLetter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
            let isOther = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (!scheme.isEmpty && isOther) else { return nil }
            scheme.append(isLetter ? lower : byte)
        }
        return nil
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    }

    private static func standardized(_ path: String) -> String {
        (path as NSString).standardizingPath
    }

    // MARK: - Derived ids and titles

    static func derivedTitle(for draft: FeedDraft) -> String {
        if let source = draft.source {
            let name: String
            switch source {
            case let .remote(url): name = url.deletingPathExtension().lastPathComponent
            case let .file(path): name = Self.fileStem(path)
            }
            // (Not Foundation's replacingOccurrences: a tenth of a folder's list.)
            let readable = name.utf8.contains(UInt8(ascii: "_")) ? String(name.map { $0 == "_" ? " " : $0 }) : name
            if !readable.isEmpty && readable != "/" { return readable }
        }
        return "Untitled \(draft.position)"
    }

    /// A readable, stable id from the URL's file name ("BigBuckBunny.mp4" →
    /// "bigbuckbunny"); on a clash, a short hash of the URL keeps it unique and
    /// still stable.
    private static func derivedID(for draft: FeedDraft, taken: inout [String: Int]) -> String {
        let key = draft.source?.description ?? "item-\(draft.position)"
        var slug = ""
        if let source = draft.source {
            let name: String
            switch source {
            case let .remote(url): name = url.deletingPathExtension().lastPathComponent
            case let .file(path): name = Self.fileStem(path)
            }
            slug = slugify(name)
        }
        // (A slug is ASCII letters, digits and dashes: its digits told by bytes.)
        if slug.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { slug = "item-" + slug }
        if slug == "item-" { slug = "item-\(shortHash(key))" }
        var candidate = slug
        if taken[candidate] != nil { candidate = "\(slug)-\(shortHash(key))" }
        var counter = 2
        let base = candidate
        while taken[candidate] != nil {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        taken[candidate] = draft.position
        return candidate
    }

    /// "/music/Album/01 Song.mp3" → "01 Song", without NSString (a folder
    /// of thousands of files lists quickly).
    static func fileStem(_ path: String) -> String {
        // By bytes: `/` and `.` are ASCII, never part of another character's
        // UTF-8 (by Characters, the scan was most of a folder item's id).
        let bytes = path.utf8
        let name = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes[bytes.index(after: $0)...] } ?? bytes[...]
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return String(Substring(name)) }
        return String(Substring(name[..<dot]))
    }

    static func slugify(_ text: String) -> String {
        // ASCII letters and digits of the lowercased text, runs of anything
        // else as one dash; read as bytes (a non-ASCII scalar's bytes are all
        // above 0x7F, so each only asks for a dash).
        var result: [UInt8] = []
        var pendingDash = false
        // ASCII text is lowercased by bytes; other text as Unicode says
        // (which can make ASCII letters: "İ" → "i̇", the Kelvin sign → "k").
        let lowered = text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } : Array(text.lowercased().utf8)
        for byte in lowered {
            if (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) {
                if pendingDash && !result.isEmpty { result.append(UInt8(ascii: "-")) }
                pendingDash = false
                result.append(byte)
                if result.count == 48 { break }
            } else {
                pendingDash = true
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// 32-bit FNV-1a as 8 hex digits: stable across runs and platforms, unlike
    /// Swift's seeded `hashValue`.
    static func shortHash(_ text: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}

extension String {
    /// Without leading and trailing white space (Unicode's, line breaks
    /// included); the same as Foundation's trimming, without a bridge
    /// through NSString per call (a quarter of reading a large feed).
    var trimmedOfWhitespace: String {
        // Most text starts and ends with a visible ASCII character: nothing to do.
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F { return self }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return self }
        return String(scalars[first...last])
    }
}
