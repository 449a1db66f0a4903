import Foundation
import MediaModel

/// Podcasting 2.0's chapters file (`<podcast:chapters url="…"
/// type="application/json+chapters"/>`): `{"version": "1.2.0", "chapters":
/// [{"startTime": 0, "title": "Intro"}, …]}`. Fetched when the episode
/// plays (the feed only names it), read here.
public enum PodcastChapters {
    /// Far above any episode's chapters file.
    public static let maximumBytes: Int64 = 1 << 20

    /// The chapters, by start; entries without a usable start are left out
    /// (`toc: false` ones too: they are not for navigation). Nil when the
    /// bytes are not such a file.
    public static func decode(_ bytes: [UInt8]) -> [Chapter]? {
        guard let root = try? JSONParser.parse(bytes, maximumArrayLength: 10_000).value,
              case let .array(entries)? = root["chapters"]?.value else { return nil }
        var chapters: [Chapter] = []
        for entry in entries {
            let value = entry.value
            if case .bool(false)? = value["toc"]?.value { continue }
            guard case let .number(text)? = value["startTime"]?.value, let start = CheckedNumber.time(Double(text)) else { continue }
            var title = ""
            if case let .string(named)? = value["title"]?.value { title = named.trimmingCharacters(in: .whitespacesAndNewlines) }
            chapters.append(Chapter(start: start, title: title.isEmpty ? "Chapter \(chapters.count + 1)" : title))
        }
        return chapters.sorted { $0.start < $1.start }
    }
}
