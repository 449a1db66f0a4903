import Foundation
import MediaModel
import MediaCacheFolder
import MediaFeed
import MediaTerminal

extension Availability {
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
public struct ItemRow: Sendable {
    public var state: Availability
    public var size: Int64?
    public var received: Int64?
    public var detail: String?
    public var stateText: String
    /// What the background player is doing with it, when it plays, shows,
    /// buffers or holds it paused.
    public private(set) var playback: ItemStatus?
    /// Duration, tags and format of its file, once probed.
    public var details: MediaDetails?
    /// A web page's title, as yt-dlp said it when the page was resolved.
    public var pageTitle: String?
    /// Played to (nearly) its end.
    public var played = false
    /// Appeared in the feed since it was first read, and not played yet.
    public var isNew = false
    /// Where it was left part way (seconds), in any player of this user:
    /// where its next start resumes.
    public var resumeAt: Double?

    public init(_ item: FeedItem, cache: CacheSnapshot?) {
        if case let .remote(url)? = item.source { pageTitle = cache?.pageTitle(for: url) }
        var entry = EntryStatus.notDownloaded
        // A local file is looked at once: readable, a regular file, its size.
        var localSize: Int64?
        let readable: (String) -> Bool = { path in
            var info = stat()
            guard stat(path, &info) == 0, LocalFile.isReadable(path, info) else { return false }
            localSize = Int64(info.st_size)
            return true
        }
        (state, detail) = item.availability(isReadable: readable) { url in
            entry = cache?.status(for: url) ?? .notDownloaded
            return entry.availability
        }
        switch state {
        case .invalid: stateText = "invalid: \(detail ?? "")"
        case .missing: stateText = "missing: \(detail ?? "")"
        case .textOnly: stateText = "text only"
        case .local:
            stateText = "local file"
            size = localSize
        case .notDownloaded, .downloading, .partial, .cached, .failed:
            stateText = EntryText.describe(entry).state
            switch entry {
            case .notDownloaded: break
            case let .downloading(received, total), let .partial(received, total):
                self.received = received
                size = total
            case let .cached(bytes):
                size = bytes
            case let .failed(reason, received):
                detail = reason
                self.received = received
            }
        }
    }

    /// The feed's title, or where the feed gave none, the page's or the
    /// file's title tag.
    func title(of item: FeedItem) -> String {
        guard item.titleIsDerived else { return item.title }
        if let pageTitle, !pageTitle.isEmpty { return pageTitle }
        guard let tag = details?.title, !tag.isEmpty else { return item.title }
        return tag
    }

    /// Shows the background player's state first: `▶ playing 00:12/03:20 · cached`.
    public mutating func show(_ playback: ItemStatus) {
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
public enum ListRenderer {
    /// `columns`: chosen names (ListColumns.all), else those with something
    /// to show, fitted to `width`; `total`: the feed's item count when the
    /// items are a filter's ("12 of 5,000 items").
    public static func render(feed: Feed, rows: [ItemRow], width: Int?, colors: Bool, columns chosen: [String]? = nil, of total: Int? = nil) -> String {
        let invalid = rows.filter { $0.state == .invalid }.count
        let count = feed.items.count
        var caption = DisplayWidth.singleLine(feed.title) + " · "
            + (total.map { "\(count) of \($0) item\($0 == 1 ? "" : "s")" } ?? "\(count) item\(count == 1 ? "" : "s")")
        if invalid > 0 { caption += " (\(invalid) invalid)" }
        let fresh = rows.filter(\.isNew).count
        if fresh > 0 { caption += " · \(fresh) new" }
        if let width { caption = DisplayWidth.truncate(caption, to: width) }

        if feed.items.isEmpty {
            let hint = total == nil ? "Nothing to list yet: add items to the feed (the format is in docs/FEED.md)." : "No item matches."
            return Style.bold.apply(caption, enabled: colors) + "\n" + hint + "\n"
        }

        let names = chosen ?? defaultColumns(feed: feed, rows: rows, width: width)
        var table = Table(columns: names.map(column))
        for (item, row) in zip(feed.items, rows) {
            table.append(names.map { cell($0, item: item, row: row) })
        }
        let lines = [Style.bold.apply(caption, enabled: colors)] + table.render(maximumWidth: width, colors: colors)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Those with something to show: DURATION once a length is known,
    /// ARTIST and ALBUM once a file has those tags, DATE when the feed dates
    /// its items, POSITION once an item was left part way; on a narrow
    /// terminal DATE goes first, then ALBUM, then ARTIST, so TITLE and
    /// STATE keep their room.
    static func defaultColumns(feed: Feed, rows: [ItemRow], width: Int?) -> [String] {
        var names = ["number", "kind", "title"]
        let artists = rows.contains { $0.details?.artist?.isEmpty == false }
        let albums = rows.contains { $0.details?.album?.isEmpty == false }
        if artists { names.append("artist") }
        if albums { names.append("album") }
        if feed.items.contains(where: { $0.published != nil }) { names.append("date") }
        names.append("state")
        if rows.contains(where: { $0.resumeAt != nil }) { names.append("position") }
        if rows.contains(where: { $0.details?.duration != nil }) || feed.items.contains(where: { $0.duration != nil }) { names.append("duration") }
        names.append("size")
        // About what each needs at least, with the two spaces between.
        let least = ["number": 4, "kind": 5, "title": 16, "artist": 12, "album": 12, "date": 10, "state": 14, "position": 8, "duration": 8, "size": 9]
        for dropped in ["date", "album", "artist"] {
            let needed = names.reduce(0) { $0 + (least[$1] ?? 8) + 2 }
            if let width, needed > width { names.removeAll { $0 == dropped } }
        }
        return names
    }

    private static func column(_ name: String) -> Table.Column {
        switch name {
        case "number": return .init("#", alignRight: true)
        case "kind": return .init("KIND")
        case "title": return .init("TITLE", minimumWidth: 12, shrinkWeight: 3)
        case "artist": return .init("ARTIST", minimumWidth: 8, shrinkWeight: 2)
        case "album": return .init("ALBUM", minimumWidth: 8, shrinkWeight: 2)
        case "state": return .init("STATE", minimumWidth: 14, shrinkWeight: 2)
        case "date": return .init("DATE")
        case "position": return .init("POSITION", alignRight: true)
        case "duration": return .init("DURATION", alignRight: true)
        default: return .init("SIZE", alignRight: true)
        }
    }

    private static func cell(_ name: String, item: FeedItem, row: ItemRow) -> Table.Cell {
        switch name {
        case "number": return Table.Cell("\(item.position)")
        case "kind": return Table.Cell(item.kind?.name ?? (row.state == .textOnly ? "text" : "?"), style: item.kind == nil && row.state != .textOnly ? .red : nil)
        case "title": return Table.Cell((row.isNew ? "• " : row.played ? "✓ " : "") + row.title(of: item))
        case "artist": return Table.Cell(row.details?.artist.map(DisplayWidth.singleLine) ?? "")
        case "album": return Table.Cell(row.details?.album.map(DisplayWidth.singleLine) ?? "")
        case "state": return Table.Cell(row.stateText, style: row.style)
        case "date": return Table.Cell(item.published.map(DayText.text) ?? "")
        case "position": return Table.Cell(row.resumeAt.map(StatusText.clock) ?? "")
        case "duration": return Table.Cell((row.details?.duration ?? item.duration).map(StatusText.clock) ?? "")
        default: return Table.Cell(row.sizeText)
        }
    }
}

/// `list --json`: a stable document, schema "mediaplay.list/2" (docs/FEED.md),
/// written by hand in one pass (keys in sorted order, every key present).
public enum ListDocument {
    public static let schemaName = "mediaplay.list/2"

    /// Every member name, encoded once.
    private enum Key {
        static let album = JSONWriter.Key("album")
        static let artist = JSONWriter.Key("artist")
        static let chapters = JSONWriter.Key("chapters")
        static let codec = JSONWriter.Key("codec")
        static let description = JSONWriter.Key("description")
        static let duration = JSONWriter.Key("duration")
        static let error = JSONWriter.Key("error")
        static let feed = JSONWriter.Key("feed")
        static let height = JSONWriter.Key("height")
        static let id = JSONWriter.Key("id")
        static let items = JSONWriter.Key("items")
        static let kind = JSONWriter.Key("kind")
        static let line = JSONWriter.Key("line")
        static let loudness = JSONWriter.Key("loudness")
        static let integrated = JSONWriter.Key("integrated")
        static let range = JSONWriter.Key("range")
        static let truePeak = JSONWriter.Key("truePeak")
        static let tracks = JSONWriter.Key("tracks")
        static let number = JSONWriter.Key("number")
        static let language = JSONWriter.Key("language")
        static let bitmap = JSONWriter.Key("bitmap")
        static let media = JSONWriter.Key("media")
        static let new = JSONWriter.Key("new")
        static let played = JSONWriter.Key("played")
        static let playback = JSONWriter.Key("playback")
        static let position = JSONWriter.Key("position")
        static let progress = JSONWriter.Key("progress")
        static let published = JSONWriter.Key("published")
        static let received = JSONWriter.Key("received")
        static let repaired = JSONWriter.Key("repaired")
        static let resumeAt = JSONWriter.Key("resumeAt")
        static let sampleRate = JSONWriter.Key("sampleRate")
        static let schema = JSONWriter.Key("schema")
        static let size = JSONWriter.Key("size")
        static let source = JSONWriter.Key("source")
        static let start = JSONWriter.Key("start")
        static let state = JSONWriter.Key("state")
        static let thumbnail = JSONWriter.Key("thumbnail")
        static let title = JSONWriter.Key("title")
        static let url = JSONWriter.Key("url")
        static let width = JSONWriter.Key("width")
    }


    /// Writes the document to `output` in pieces of about 256 KiB, until
    /// `output` says it failed.
    public static func write(_ loaded: LoadedFeed, rows: [ItemRow], to output: ([UInt8]) -> Bool) {
        guard output(header(loaded)) else { return }
        // The items in pieces, made on two threads and written in order.
        let items = loaded.feed.items
        let pieceSize = 500
        PiecesInOrder.write(count: (items.count + pieceSize - 1) / pieceSize, piece: { piece in
            let range = piece * pieceSize..<min(items.count, (piece + 1) * pieceSize)
            return Self.piece(items[range], rows: rows[range], first: piece == 0)
        }, to: output)
        _ = output(footer(hasItems: !items.isEmpty))
    }

    /// The document up to its items (`feed`, then `items` opened).
    static func header(_ loaded: LoadedFeed) -> [UInt8] {
        var json = JSONWriter(reserving: 4096)
        json.beginObject()
        json.key(Key.feed)
        json.beginObject()
        // What was mended to read it (`[]`: read as it is).
        json.key(Key.repaired)
        json.beginArray()
        for repair in loaded.feed.repairs { json.string(repair) }
        json.endArray()
        // A URL's password is never shown, here either (`redactingUserinfo`).
        json.key(Key.source); json.string(loaded.source.redactingUserinfo)
        json.key(Key.title); json.string(loaded.feed.title)
        json.endObject()
        json.key(Key.items)
        json.beginArray()
        return json.bytes
    }

    /// Items of the document, in order: any run of them is a piece of its
    /// own (`first`: the run that starts the items).
    static func piece(_ items: ArraySlice<FeedItem>, rows: ArraySlice<ItemRow>, first: Bool) -> [UInt8] {
        // Inside the document's object and its items (the first piece starts them).
        var json = JSONWriter(inside: [true, !first], reserving: items.count * 700)
        for (item, row) in zip(items, rows) { write(item, row: row, into: &json) }
        return json.bytes
    }

    /// The document after its items.
    static func footer(hasItems: Bool) -> [UInt8] {
        var end = JSONWriter(inside: [true, hasItems])
        end.endArray()
        end.key(Key.schema); end.string(schemaName)
        end.endObject()
        end.newlineAtEnd()
        return end.bytes
    }

    private static func write(_ item: FeedItem, row: ItemRow, into json: inout JSONWriter) {
        json.beginObject()
        // The chapters playback uses: the feed's (a podcast's), else the file's.
        json.key(Key.chapters); write(item.chapters.isEmpty ? row.details?.chapters ?? [] : item.chapters, into: &json)
        json.key(Key.description); json.string(item.description)
        json.key(Key.duration); json.number(item.duration)
        json.key(Key.error); json.string(row.detail)
        json.key(Key.id); json.string(item.id)
        json.key(Key.kind); json.string(item.kind?.name)
        json.key(Key.line); json.number(item.location.line)
        json.key(Key.media)
        if let media = row.details { write(media, into: &json) } else { json.null() }
        json.key(Key.new); json.bool(row.isNew)
        json.key(Key.playback)
        if let playback = row.playback {
            json.beginObject()
            json.key(Key.duration); json.number(playback.duration)
            json.key(Key.position); json.number(playback.position)
            json.key(Key.progress); json.number(playback.progress)
            json.key(Key.state); json.string(playback.state.rawValue)
            json.endObject()
        } else {
            json.null()
        }
        json.key(Key.played); json.bool(row.played)
        json.key(Key.position); json.number(item.position)
        json.key(Key.published); json.string(item.published.map(FeedDates.text))
        json.key(Key.received); json.number(row.received)
        json.key(Key.resumeAt); json.number(row.resumeAt)
        json.key(Key.size); json.number(row.size)
        json.key(Key.state); json.string(row.state.rawValue)
        json.key(Key.thumbnail); json.string(item.thumbnail?.description.redactingUserinfo)
        json.key(Key.title); json.string(row.title(of: item))
        json.key(Key.url); json.string(item.source?.description.redactingUserinfo)
        json.endObject()
    }

    /// `[{"start": seconds, "title": …}]`
    private static func write(_ chapters: [Chapter], into json: inout JSONWriter) {
        json.beginArray()
        for chapter in chapters {
            json.beginObject()
            json.key(Key.start); json.number(chapter.start)
            json.key(Key.title); json.string(chapter.title)
            json.endObject()
        }
        json.endArray()
    }

    private static func write(_ media: MediaDetails, into json: inout JSONWriter) {
        json.beginObject()
        json.key(Key.album); json.string(media.album)
        json.key(Key.artist); json.string(media.artist)
        json.key(Key.chapters); write(media.chapters, into: &json)
        json.key(Key.codec); json.string(media.codec)
        json.key(Key.duration); json.number(media.duration)
        json.key(Key.height); json.number(media.height)
        // Measured once per file in the background: null until then.
        json.key(Key.loudness)
        if let loudness = media.loudness {
            json.beginObject()
            json.key(Key.integrated); json.number(loudness.integrated)
            json.key(Key.range); json.number(loudness.range)
            json.key(Key.truePeak); json.number(loudness.truePeak)
            json.endObject()
        } else {
            json.null()
        }
        json.key(Key.sampleRate); json.number(media.sampleRate)
        json.key(Key.title); json.string(media.title)
        // The file's own audio and subtitle tracks (subtitle files beside it come when it plays).
        json.key(Key.tracks)
        json.beginArray()
        for track in media.tracks ?? [] {
            json.beginObject()
            json.key(Key.bitmap); json.bool(track.isBitmap)
            json.key(Key.codec); json.string(track.codec)
            json.key(Key.kind); json.string(track.kind.rawValue)
            json.key(Key.language); json.string(track.language)
            json.key(Key.number); json.number(track.number)
            json.key(Key.title); json.string(track.title)
            json.endObject()
        }
        json.endArray()
        json.key(Key.width); json.number(media.width)
        json.endObject()
    }
}
