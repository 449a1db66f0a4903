import CLinux
import Foundation

/// Finding items by words: an item matches a query when its title, artist,
/// album, description or file name contains every word of it, case and
/// accents aside ("bjork" finds "Björk"). Each item's text is folded once,
/// when the index is made (a feed, or a feed whose details came); a query
/// is then a byte search per word, and a query that only grew searches
/// only the previous matches (a keystroke at 100,000 items stays within a
/// frame: mediaplay-bench search).
public struct ItemSearch: Sendable {
    /// Each item's folded text, its fields joined by a byte no word has.
    private let haystacks: [[UInt8]]

    public var count: Int { haystacks.count }

    /// `details`: one per item (nil where not probed), or empty.
    public init(items: [FeedItem], details: [MediaDetails?] = []) {
        haystacks = items.indices.map { index in
            let item = items[index]
            let known = index < details.count ? details[index] : nil
            var text: [UInt8] = []
            text.reserveCapacity(item.title.utf8.count + (item.description?.utf8.count ?? 0) + 64)
            for field in [item.title, known?.title, known?.artist, known?.album, item.description] {
                guard let field else { continue }
                Self.fold(field, into: &text)
                text.append(0x01)
            }
            if let source = item.source { Self.fold(Self.fileName(source), into: &text) }
            return text
        }
    }

    /// The indices (in feed order) of the items that match `query`, among
    /// `candidates` when given (the matches of a shorter query that this
    /// one extends). An empty query matches everything.
    /// `previous`: the query `candidates` matched, when this one only
    /// typed on (its last word longer, or a word more): then only that
    /// word is looked for (the others matched already).
    public func matches(_ query: String, among candidates: [Int]? = nil, previous: String? = nil) -> [Int] {
        var words = Self.words(query)
        let pool = candidates ?? Array(haystacks.indices)
        guard !words.isEmpty else { return pool }
        if candidates != nil, let previous {
            let before = Self.words(previous)
            // All but the last word the same as before: the last is all there is to look for.
            if before.count <= words.count, before.count >= words.count - 1, Array(before.prefix(words.count - 1)) == Array(words.prefix(words.count - 1)) {
                words = [words[words.count - 1]]
            }
        }
        return pool.filter { index in
            haystacks[index].withUnsafeBytes { text in
                words.allSatisfy { word in
                    word.withUnsafeBytes { needle in mp_contains_bytes(text.baseAddress, text.count, needle.baseAddress, needle.count) != 0 }
                }
            }
        }
    }

    /// Whether `longer`'s matches are among `shorter`'s: each word of the
    /// shorter query is part of the longer's word in its place, or the
    /// longer only added words.
    public static func narrows(_ longer: String, from shorter: String) -> Bool {
        let old = words(shorter), new = words(longer)
        guard old.count <= new.count else { return false }
        for (index, word) in old.enumerated() {
            let candidate = new[index]
            guard candidate.count >= word.count, candidate.withUnsafeBytes({ c in word.withUnsafeBytes { w in mp_contains_bytes(c.baseAddress, c.count, w.baseAddress, w.count) != 0 } }) else { return false }
        }
        return true
    }

    static func words(_ query: String) -> [[UInt8]] {
        fold(query).split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map(Array.init)
    }

    /// Lowercase without accents, as bytes: ASCII by a table, the rest by
    /// Foundation's folding (case and diacritics), which is slower.
    public static func fold(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        fold(text, into: &bytes)
        return bytes
    }

    /// `fold`, appended to `bytes`.
    public static func fold(_ text: String, into bytes: inout [UInt8]) {
        let start = bytes.count
        for byte in text.utf8 {
            if byte >= 0x80 {
                bytes.removeSubrange(start...)
                let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                bytes += folded.utf8.map { $0 < 0x20 ? 0x20 : $0 }
                return
            }
            bytes.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte < 0x20 ? 0x20 : byte)
        }
    }

    /// The last part of the path (no URL parsing: a tenth of a second at
    /// 100,000 items).
    private static func fileName(_ source: MediaSource) -> String {
        let text: String
        switch source {
        case let .remote(url): text = url.relativeString
        case let .file(file): text = file
        }
        // By bytes: Character by Character took a quarter of the index's making.
        let bytes = text.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let start = bytes[..<end].lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
