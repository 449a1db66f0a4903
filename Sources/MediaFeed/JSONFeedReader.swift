import Foundation
import MediaModel

/// JSON Feed 1.1 (jsonfeed.org): `items[]` with `attachments[]`. The first
/// attachment is the item's media; an item with only an `image` is an
/// image item; one with neither is words only (text-only, still valid).
enum JSONFeedReader {
    /// A JSON Feed by its `version`, however written: the URL (http or
    /// https, `1` or `1.1`, a trailing slash or not, any case), or the bare
    /// number ("1.1") when the items are not mediaplay's own (no `type`).
    static func isJSONFeed(_ root: JSONValue) -> Bool {
        guard case let .string(version)? = root["version"]?.value else { return false }
        let spelled = version.trimmedOfWhitespace.lowercased()
        if spelled.contains("jsonfeed.org/version/") { return true }
        guard ["1", "1.0", "1.1"].contains(spelled) else { return false }
        if root["home_page_url"] != nil || root["feed_url"] != nil { return true }
        guard case let .array(items)? = root["items"]?.value else { return false }
        return !items.contains { $0.value["type"] != nil }
    }

    static func decode(_ root: JSONValue.Located, text: TextPositions, origin: FeedOrigin) throws(FeedError) -> Feed {
        guard let itemsValue = root.value["items"] else {
            throw FeedError(position: text.position(of: root.offset), message: "the JSON Feed has no \"items\" array (JSON Feed 1.1 requires one)")
        }
        guard case let .array(records) = itemsValue.value else {
            throw FeedError(position: text.position(of: itemsValue.offset), message: "the JSON Feed's \"items\" must be an array, not \(itemsValue.value.typeName)")
        }
        let locations = text.positions(of: records.map(\.offset))
        let drafts = records.indices.map { index in
            draft(records[index].value, position: index + 1, location: locations[index], origin: origin)
        }
        var title: String?
        if case let .string(text)? = root.value["title"]?.value { title = text.trimmedOfWhitespace }
        return Feed(title: title.flatMap { $0.isEmpty ? nil : $0 } ?? origin.fallbackTitle, items: FeedDecoder.items(from: drafts))
    }

    private static func draft(_ record: JSONValue, position: Int, location: SourcePosition, origin: FeedOrigin) -> FeedDraft {
        var draft = FeedDraft(position: position, location: location)
        guard case .object = record else {
            draft.problem = "the item is \(record.typeName), not an object"
            return draft
        }
        var problems: [String] = []
        func string(_ key: String) -> String? {
            guard case let .string(text)? = record[key]?.value else { return nil }
            let trimmed = text.trimmedOfWhitespace
            return trimmed.isEmpty ? nil : trimmed
        }
        func source(_ text: String, _ field: String) -> MediaSource? {
            switch FeedDecoder.resolve(text, origin: origin) {
            case let .success(source): return source
            case let .failure(problem):
                problems.append("\(field): \(problem.message)")
                return nil
            }
        }

        switch record["id"]?.value {
        case let .string(text)?:
            let trimmed = text.trimmedOfWhitespace
            if trimmed.isEmpty { problems.append("\"id\" is empty (JSON Feed 1.1 requires a unique id per item)") } else { draft.explicitID = trimmed }
        case let .number(text)?:
            // The spec says a string; a number is kept as its text.
            draft.explicitID = text
        case nil, .null?:
            problems.append("missing \"id\" (JSON Feed 1.1 requires a unique id per item)")
        case let other?:
            problems.append("\"id\" must be a string, not \(other.typeName)")
        }
        draft.title = string("title")
        draft.description = string("content_text") ?? string("summary") ?? string("content_html").map(HTMLText.plain)
        draft.published = string("date_published").flatMap(FeedDates.rfc3339)
        let image = string("image") ?? string("banner_image")

        var media: (url: String, mime: String?, seconds: Double?)?
        if let value = record["attachments"] {
            switch value.value {
            case let .array(attachments):
                // The first attachment with a URL is the item's media;
                // subtitle files (WebVTT, SubRip) are its subtitles.
                for attachment in attachments {
                    guard case let .string(url)? = attachment.value["url"]?.value, !url.trimmedOfWhitespace.isEmpty else { continue }
                    var mime: String?
                    if case let .string(type)? = attachment.value["mime_type"]?.value { mime = type }
                    if let mime, SubtitleLink.isSubtitle(mime: mime) {
                        if let found = source(url, "subtitle attachment url") { draft.subtitles.append(SubtitleLink(source: found)) }
                        continue
                    }
                    guard media == nil else { continue }
                    var seconds: Double?
                    if case let .number(text)? = attachment.value["duration_in_seconds"]?.value { seconds = CheckedNumber.duration(Double(text)) }
                    media = (url, mime, seconds)
                }
            case .null: break
            default: problems.append("\"attachments\" must be an array, not \(value.value.typeName)")
            }
        }
        if let media {
            draft.source = source(media.url, "attachment url")
            draft.kind = MediaKind.guess(mime: media.mime, url: draft.source)
            if draft.source != nil, draft.kind == nil {
                problems.append("attachment \(media.mime.map { "of type \($0)" } ?? "without a mime_type") is not audio, video or an image")
            }
            draft.duration = media.seconds
            draft.thumbnail = image.flatMap { source($0, "image") }
        } else if let image {
            draft.source = source(image, "image")
            draft.kind = .image
        }
        draft.problem = problems.first
        return draft
    }
}
