import Foundation
import MediaModel

/// Playlists: M3U and M3U8 (plain, or extended with `#EXTINF:seconds,title`)
/// and PLS (`FileN`, `TitleN`, `LengthN`), the form most internet radio is
/// published in. Entries resolve against the playlist's own location; one
/// from the network may name only URLs, never a local file.
enum PlaylistReader {
    static func m3u(_ bytes: [UInt8], origin: FeedOrigin) throws(FeedError) -> Feed {
        var drafts: [FeedDraft] = []
        var pending: (seconds: Double?, title: String?)?
        var title: String?
        for (index, line) in lines(bytes).enumerated() {
            let text = String(line).trimmedOfWhitespace
            if text.isEmpty { continue }
            if text.hasPrefix("#") {
                let upper = text.uppercased()
                if upper.hasPrefix("#EXTINF:") {
                    pending = extinf(String(text.dropFirst(8)))
                } else if upper.hasPrefix("#PLAYLIST:") {
                    title = String(text.dropFirst(10)).trimmedOfWhitespace
                } else if upper.hasPrefix("#EXT-X-TARGETDURATION") || upper.hasPrefix("#EXT-X-STREAM-INF") || upper.hasPrefix("#EXT-X-MEDIA-SEQUENCE") {
                    // An HLS playlist from the network is one item: the
                    // stream, played from its manifest (its parts over http(s) only).
                    if case let .remote(url) = origin { return Feed.single(.remote(url)) }
                    throw FeedError(position: SourcePosition(line: index + 1, column: 1), message: "an HLS stream's playlist (#EXT-X-…), not a list of items: play its URL instead")
                }
                continue
            }
            var draft = entry(text, position: drafts.count + 1, line: index + 1, origin: origin)
            draft.title = pending?.title
            draft.duration = pending?.seconds
            pending = nil
            drafts.append(draft)
            if drafts.count > FeedDecoder.maximumItems { throw tooMany(line: index + 1) }
        }
        return Feed(title: title.flatMap { $0.isEmpty ? nil : $0 } ?? origin.fallbackTitle, items: FeedDecoder.items(from: drafts))
    }

    static func pls(_ bytes: [UInt8], origin: FeedOrigin) throws(FeedError) -> Feed {
        // FileN, TitleN and LengthN, in N's order whatever the lines' order.
        var entries: [Int: (file: String?, title: String?, length: Double?, line: Int)] = [:]
        for (index, line) in lines(bytes).enumerated() {
            let text = String(line).trimmedOfWhitespace
            guard let equals = text.firstIndex(of: "="), !text.hasPrefix(";"), !text.hasPrefix("#") else { continue }
            let key = String(text[..<equals]).trimmedOfWhitespace.lowercased()
            let value = String(text[text.index(after: equals)...]).trimmedOfWhitespace
            for field in ["file", "title", "length"] where key.hasPrefix(field) {
                guard let number = Int(key.dropFirst(field.count)), number >= 0 else { continue }
                // Counted as numbers appear, as M3U counts lines: never cut silently.
                if entries[number] == nil, entries.count == FeedDecoder.maximumItems { throw tooMany(line: index + 1) }
                var entry = entries[number] ?? (nil, nil, nil, index + 1)
                switch field {
                case "file": entry.file = value; entry.line = index + 1
                case "title": entry.title = value.isEmpty ? nil : value
                default: entry.length = Double(value).flatMap { $0 > 0 ? CheckedNumber.duration($0) : nil }
                }
                entries[number] = entry
            }
        }
        var drafts: [FeedDraft] = []
        for number in entries.keys.sorted() {
            guard let found = entries[number], let file = found.file else { continue }
            var draft = entry(file, position: drafts.count + 1, line: found.line, origin: origin)
            draft.title = found.title
            draft.duration = found.length
            drafts.append(draft)
        }
        return Feed(title: origin.fallbackTitle, items: FeedDecoder.items(from: drafts))
    }

    /// The one refusal of a playlist too long, M3U or PLS, at the entry past the limit.
    static func tooMany(line: Int) -> FeedError {
        FeedError(position: SourcePosition(line: line, column: 1), message: "more than \(FeedDecoder.maximumItems) entries; mediaplay reads playlists of at most \(FeedDecoder.maximumItems) entries (split the playlist)")
    }

    /// `#EXTINF:` after the tag: `seconds[ attributes],title` (a comma inside
    /// a quoted attribute is not the title's).
    static func extinf(_ text: String) -> (seconds: Double?, title: String?) {
        var quoted = false
        var comma: String.Index?
        for index in text.indices {
            if text[index] == "\"" { quoted.toggle() }
            if text[index] == ",", !quoted {
                comma = index
                break
            }
        }
        let head = comma.map { text[..<$0] } ?? text[...]
        let number = head.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) }
        let seconds = number.flatMap { $0 > 0 ? CheckedNumber.duration($0) : nil }
        let title = comma.map { String(text[text.index(after: $0)...]).trimmedOfWhitespace }.flatMap { $0.isEmpty ? nil : $0 }
        return (seconds, title)
    }

    /// One entry: its source, with a playlist's rules, and its kind from the
    /// extension (a stream URL without one is audio: internet radio).
    private static func entry(_ text: String, position: Int, line: Int, origin: FeedOrigin) -> FeedDraft {
        var draft = FeedDraft(position: position, location: SourcePosition(line: line, column: 1))
        if let problem = remoteProblem(text, origin: origin) {
            draft.problem = problem
            return draft
        }
        switch FeedDecoder.resolve(text, origin: origin) {
        case let .success(source):
            draft.source = source
            let ext: String
            switch source {
            case let .remote(url): ext = url.pathExtension
            case let .file(path): ext = FolderFeed.pathExtension(path)
            }
            draft.kind = MediaKind.guess(fromExtension: ext) ?? .audio
        case let .failure(problem):
            draft.problem = problem.message
        }
        return draft
    }

    /// A playlist from the network names URLs only: an absolute path, or a
    /// relative one that climbs out of the playlist's folder, is refused.
    static func remoteProblem(_ text: String, origin: FeedOrigin) -> String? {
        guard case .remote = origin, FeedDecoder.schemeOf(text) == nil else { return nil }
        if text.hasPrefix("/") { return "a playlist from the network cannot name local files (\(text))" }
        var depth = 0
        let path = text.prefix { $0 != "?" && $0 != "#" }
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == ".." { depth -= 1 } else if component != "." { depth += 1 }
            if depth < 0 { return "\"\(text)\" climbs out of the playlist's folder" }
        }
        return nil
    }

    /// Lines as text (UTF-8; a Latin-1 byte becomes U+FFFD, never a failure).
    private static func lines(_ bytes: [UInt8]) -> [Substring] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let text = String(decoding: body, as: UTF8.self)
        return text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
    }
}
