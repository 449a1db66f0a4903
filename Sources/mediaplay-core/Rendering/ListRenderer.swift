import Foundation
import MediaModel
import MediaplayCommandLine
import MediaCache
import MediaFeed
import MediaTerminal

/// Whether an item's media is at hand, as `list` shows it (what plays is
/// the model's `ItemState`, in `playback`).
enum Availability: String, Codable {
    /// A remote item not in the cache yet.
    case notDownloaded = "not-downloaded"
    /// Some process is downloading it now.
    case downloading
    /// A download stopped part way; the next one resumes.
    case partial
    /// Complete and verified in the cache.
    case cached
    /// The last download failed; `detail` says why.
    case failed
    /// A local file, used in place.
    case local
    /// A local file that does not exist (or cannot be read).
    case missing
    /// A record that cannot be used; `detail` says why.
    case invalid
    /// Words only, no media (a facts-feed row without an image).
    case textOnly = "text-only"

    var style: Style? {
        switch self {
        case .notDownloaded, .partial: return .dim
        case .downloading: return .yellow
        case .cached, .local: return .green
        case .missing, .invalid, .failed: return .red
        case .textOnly: return .dim
        }
    }
}

/// What `list` knows of an item beyond the feed: its state and size.
struct ItemRow {
    var state: Availability
    var size: Int64?
    var received: Int64?
    var detail: String?
    var stateText: String
    /// What the background player is doing with it, when it plays, shows,
    /// buffers or holds it paused.
    private(set) var playback: ItemStatus?
    /// Duration, tags and format of its file, once probed.
    var details: MediaDetails?

    init(_ item: FeedItem, cache: MediaCache?) {
        if let reason = item.invalidReason {
            state = .invalid
            detail = reason
            stateText = "invalid: \(reason)"
            return
        }
        switch item.source {
        case let .file(path)?:
            if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
               (attributes[.type] as? FileAttributeType) != .typeDirectory,
               access(path, R_OK) == 0 {
                state = .local
                size = (attributes[.size] as? NSNumber)?.int64Value
                stateText = "local file"
            } else {
                state = .missing
                detail = "no readable file at \(path)"
                stateText = "missing: \(detail!)"
            }
        case let .remote(url)?:
            let status = cache?.status(for: url) ?? .notDownloaded
            stateText = EntryText.describe(status).state
            switch status {
            case .notDownloaded:
                state = .notDownloaded
            case let .downloading(received, total):
                state = .downloading
                self.received = received
                size = total
            case let .partial(received, total):
                state = .partial
                self.received = received
                size = total
            case let .cached(bytes):
                state = .cached
                size = bytes
            case let .failed(reason, received):
                state = .failed
                detail = reason
                self.received = received
            }
        case nil:
            state = .textOnly
            stateText = "text only"
        }
    }

    /// Shows the background player's state first: `▶ playing 00:12/03:20 · cached`.
    mutating func show(_ playback: ItemStatus) {
        self.playback = playback
        stateText = StatusText.brief(playback) + " · " + stateText
    }

    var style: Style? { playback == nil ? state.style : .bold }

    /// The SIZE column: the full size when known; "received/total" while partial.
    var sizeText: String {
        switch state {
        case .downloading, .partial:
            if let received, let size { return "\(formatByteCount(received))/\(formatByteCount(size))" }
            return received.map(formatByteCount) ?? ""
        default:
            return size.map(formatByteCount) ?? ""
        }
    }
}

/// Lays out `list` as text: a caption line and a table fitted to `width`.
enum ListRenderer {
    static func render(feed: Feed, rows: [ItemRow], width: Int?, colors: Bool) -> String {
        let invalid = rows.filter { $0.state == .invalid }.count
        var caption = "\(DisplayWidth.singleLine(feed.title)) · \(feed.items.count) item\(feed.items.count == 1 ? "" : "s")"
        if invalid > 0 { caption += " (\(invalid) invalid)" }
        if let width { caption = DisplayWidth.truncate(caption, to: width) }

        if feed.items.isEmpty {
            return Style.bold.apply(caption, enabled: colors) + "\n"
                + "Nothing to list yet: add items to the feed (the format is in docs/FEED.md).\n"
        }

        // DURATION once some file has been probed (nothing cached: no column).
        let durations = rows.contains { $0.details?.duration != nil }
        var columns: [Table.Column] = [
            .init("#", alignRight: true),
            .init("KIND"),
            .init("TITLE", minimumWidth: 12, shrinkWeight: 3),
            .init("STATE", minimumWidth: 14, shrinkWeight: 2),
        ]
        if durations { columns.append(.init("DURATION", alignRight: true)) }
        columns.append(.init("SIZE", alignRight: true))
        var table = Table(columns: columns)
        for (item, row) in zip(feed.items, rows) {
            var cells = [
                Table.Cell("\(item.position)"),
                Table.Cell(item.kind?.name ?? "?", style: item.kind == nil ? .red : nil),
                Table.Cell(item.title),
                Table.Cell(row.stateText, style: row.style),
            ]
            if durations { cells.append(Table.Cell(row.details?.duration.map(StatusText.clock) ?? "")) }
            cells.append(Table.Cell(row.sizeText))
            table.append(cells)
        }
        let lines = [Style.bold.apply(caption, enabled: colors)] + table.render(maximumWidth: width, colors: colors)
        return lines.joined(separator: "\n") + "\n"
    }
}

/// `list --json`: a stable document, schema "mediaplay.list/2" (docs/FEED.md),
/// written by hand in one pass (keys in sorted order, every key present).
enum ListDocument {
    static let schemaName = "mediaplay.list/2"

    static func write(_ loaded: LoadedFeed, rows: [ItemRow]) -> [UInt8] {
        var json = JSONWriter(reserving: loaded.feed.items.count * 700)
        json.beginObject()
        json.key("feed")
        json.beginObject()
        json.key("source"); json.string(loaded.source)
        json.key("title"); json.string(loaded.feed.title)
        json.endObject()
        json.key("items")
        json.beginArray()
        for (item, row) in zip(loaded.feed.items, rows) {
            json.beginObject()
            json.key("description"); json.string(item.description)
            json.key("error"); json.string(row.detail)
            json.key("id"); json.string(item.id)
            json.key("kind"); json.string(item.kind?.name)
            json.key("line"); json.number(item.location.line)
            json.key("media")
            if let media = row.details { write(media, into: &json) } else { json.null() }
            json.key("playback")
            if let playback = row.playback {
                json.beginObject()
                json.key("duration"); json.number(playback.duration)
                json.key("position"); json.number(playback.position)
                json.key("progress"); json.number(playback.progress)
                json.key("state"); json.string(playback.state.rawValue)
                json.endObject()
            } else {
                json.null()
            }
            json.key("position"); json.number(item.position)
            json.key("received"); json.number(row.received)
            json.key("size"); json.number(row.size)
            json.key("state"); json.string(row.state.rawValue)
            json.key("thumbnail"); json.string(item.thumbnail?.description)
            json.key("title"); json.string(item.title)
            json.key("url"); json.string(item.source?.description)
            json.endObject()
        }
        json.endArray()
        json.key("schema"); json.string(schemaName)
        json.endObject()
        return json.bytes + [0x0A]
    }

    private static func write(_ media: MediaDetails, into json: inout JSONWriter) {
        json.beginObject()
        json.key("album"); json.string(media.album)
        json.key("artist"); json.string(media.artist)
        json.key("codec"); json.string(media.codec)
        json.key("duration"); json.number(media.duration)
        json.key("height"); json.number(media.height)
        json.key("sampleRate"); json.number(media.sampleRate)
        json.key("title"); json.string(media.title)
        json.key("width"); json.number(media.width)
        json.endObject()
    }
}
