import Foundation
import MediaplayCommandLine
import MediaCache
import MediaFeed
import MediaTerminal

/// The state of an item as `list` shows it.
enum ItemState: String, Codable {
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

    var style: Style? {
        switch self {
        case .notDownloaded, .partial: return .dim
        case .downloading: return .yellow
        case .cached, .local: return .green
        case .missing, .invalid, .failed: return .red
        }
    }
}

/// What `list` knows of an item beyond the feed: its state and size.
struct ItemRow {
    var state: ItemState
    var size: Int64?
    var received: Int64?
    var detail: String?
    var stateText: String
    /// What the background player is doing with it, when it plays, shows,
    /// buffers or holds it paused.
    private(set) var playback: ItemStatus?

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
            state = .invalid
            stateText = "invalid"
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

        var table = Table(columns: [
            .init("#", alignRight: true),
            .init("KIND"),
            .init("TITLE", minimumWidth: 12, shrinkWeight: 3),
            .init("STATE", minimumWidth: 14, shrinkWeight: 2),
            .init("SIZE", alignRight: true),
        ])
        for (item, row) in zip(feed.items, rows) {
            table.append([
                Table.Cell("\(item.position)"),
                Table.Cell(item.kind?.name ?? "?", style: item.kind == nil ? .red : nil),
                Table.Cell(item.title),
                Table.Cell(row.stateText, style: row.style),
                Table.Cell(row.sizeText),
            ])
        }
        let lines = [Style.bold.apply(caption, enabled: colors)] + table.render(maximumWidth: width, colors: colors)
        return lines.joined(separator: "\n") + "\n"
    }
}

/// `list --json`: a stable document, schema "mediaplay.list/1" (docs/FEED.md).
struct ListDocument: Codable {
    static let schemaName = "mediaplay.list/1"

    struct FeedInfo: Codable {
        var title: String
        var source: String
    }

    struct Item: Codable {
        var position: Int
        var id: String
        var kind: String?
        var title: String
        var url: String?
        var description: String?
        var thumbnail: String?
        var state: String
        var size: Int64?
        var received: Int64?
        var error: String?
        var line: Int
        var playback: Playback?

        /// The background player's state of the item (null when it is not
        /// playing, showing, buffering or paused there).
        struct Playback: Codable {
            var state: String
            var position: Double
            var duration: Double?
            /// How full the buffer is, 0...1, while buffering.
            var progress: Double?

            init(_ status: ItemStatus) {
                state = status.state.rawValue
                position = status.position
                duration = status.duration
                progress = status.progress
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(state, forKey: .state)
                try container.encode(position, forKey: .position)
                try container.encode(duration, forKey: .duration)
                try container.encode(progress, forKey: .progress)
            }
        }

        // Every key is always present, null when unknown, so that scripts can
        // rely on the shape.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(position, forKey: .position)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(title, forKey: .title)
            try container.encode(url, forKey: .url)
            try container.encode(description, forKey: .description)
            try container.encode(thumbnail, forKey: .thumbnail)
            try container.encode(state, forKey: .state)
            try container.encode(size, forKey: .size)
            try container.encode(received, forKey: .received)
            try container.encode(error, forKey: .error)
            try container.encode(playback, forKey: .playback)
            try container.encode(line, forKey: .line)
        }
    }

    var schema: String
    var feed: FeedInfo
    var items: [Item]
}
