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
    /// Every item's folded text, one after another, each ended by a 0 byte
    /// (no word has one); its fields joined by 1. One buffer: a common word
    /// is one memmem pass over all of it, not one call per item.
    private let text: [UInt8]
    /// Where each item's text starts in `text`, and one past the last.
    private let starts: [Int]

    public var count: Int { starts.count - 1 }

    /// `details`: one per item (nil where not probed), or empty.
    public init(items: [FeedItem], details: [MediaDetails?] = []) {
        var text: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(items.count + 1)
        for index in items.indices {
            starts.append(text.count)
            let item = items[index]
            let known = index < details.count ? details[index] : nil
            for field in [item.title, known?.title, known?.artist, known?.album, item.description] {
                guard let field else { continue }
                Self.fold(field, into: &text)
                text.append(0x01)
            }
            if let source = item.source { Self.fold(Self.fileName(source), into: &text) }
            text.append(0x00)
        }
        starts.append(text.count)
        self.text = text
        self.starts = starts
    }

    /// The indices (in feed order) of the items that match `query`, among
    /// `candidates` when given (the matches of a shorter query that this
    /// one extends). An empty query matches everything.
    /// `previous`: the query `candidates` matched, when this one only
    /// typed on (its last word longer, or a word more): then only that
    /// word is looked for (the others matched already).
    public func matches(_ query: String, among candidates: [Int]? = nil, previous: String? = nil) -> [Int] {
        var words = Self.words(query)
        guard !words.isEmpty else { return candidates ?? Array(0..<count) }
        if candidates != nil, let previous {
            let before = Self.words(previous)
            // All but the last word the same as before: the last is all there is to look for.
            if before.count <= words.count, before.count >= words.count - 1, Array(before.prefix(words.count - 1)) == Array(words.prefix(words.count - 1)) {
                words = [words[words.count - 1]]
            }
        }
        var result = candidates
        for word in words {
            // Many candidates: one pass over the whole text, then the two
            // sorted lists met; few: each candidate's own text.
            if let pool = result, pool.count < count / 8 {
                result = pool.filter { contains(word, in: $0) }
            } else {
                let hits = everywhere(word)
                result = result.map { Self.intersection($0, hits) } ?? hits
            }
            if result?.isEmpty == true { break }
        }
        return result ?? []
    }

    /// Whether item `index`'s text holds `word`.
    private func contains(_ word: [UInt8], in index: Int) -> Bool {
        text.withUnsafeBytes { all in
            word.withUnsafeBytes { needle in
                mp_find_bytes(all.baseAddress! + starts[index], starts[index + 1] - starts[index], needle.baseAddress, needle.count) >= 0
            }
        }
    }

    /// Every item whose text holds `word`, in order: memmem from hit to
    /// hit, each hit's item found by a binary search of `starts`.
    private func everywhere(_ word: [UInt8]) -> [Int] {
        var found: [Int] = []
        text.withUnsafeBytes { all in
            word.withUnsafeBytes { needle in
                var from = 0
                while from < all.count {
                    let offset = mp_find_bytes(all.baseAddress! + from, all.count - from, needle.baseAddress, needle.count)
                    guard offset >= 0 else { break }
                    let item = item(at: from + offset)
                    found.append(item)
                    from = starts[item + 1]
                }
            }
        }
        return found
    }

    /// The item whose text holds byte `offset`.
    private func item(at offset: Int) -> Int {
        var low = 0, high = count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The indices in both sorted lists.
    private static func intersection(_ a: [Int], _ b: [Int]) -> [Int] {
        var result: [Int] = []
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                result.append(a[i])
                i += 1
                j += 1
            } else if a[i] < b[j] {
                i += 1
            } else {
                j += 1
            }
        }
        return result
    }

    /// Whether `longer`'s matches are among `shorter`'s: each word of the
    /// shorter query is part of the longer's word in its place, or the
    /// longer only added words.
    public static func narrows(_ longer: String, from shorter: String) -> Bool {
        let old = words(shorter), new = words(longer)
        guard old.count <= new.count else { return false }
        for (index, word) in old.enumerated() {
            let candidate = new[index]
            guard candidate.count >= word.count, candidate.withUnsafeBytes({ c in word.withUnsafeBytes { w in mp_find_bytes(c.baseAddress, c.count, w.baseAddress, w.count) >= 0 } }) else { return false }
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
