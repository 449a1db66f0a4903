import ArgumentParser
import Foundation
import MediaListing
import MediaModel
import MediaplayCommandLine
import MediaCache
import MediaCacheFolder
import MediaFeed
import MediaFeedLoading
import MediaInterfaces
import MediaTerminal
import MediaplayCommon

package struct CacheCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Look after the download cache.",
        discussion: """
            The cache lives in --cache-dir (default $XDG_CACHE_HOME/mediaplay). \
            Entries in use by a running download are never removed.

            Examples:
              mediaplay cache list
              mediaplay cache remove 3 sintel
              mediaplay cache size
              mediaplay cache clear
            """,
        subcommands: [List.self, Remove.self, Size.self, Clear.self],
        defaultSubcommand: List.self
    )

    package init() {}

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the cached entries, most recently used first.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print JSON lines, one entry per line.")
        var json = false

        func run() throws {
            try runReportingErrors {
                let cache = try CacheAccess.open(global)
                let entries = cache.entries()
                let owners = Self.owners(global)
                // Media a web page resolved to: named by the page's title.
                let pages = cache.folder.pageTitles()
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    for entry in entries {
                        var line = CacheEntryJSON(entry)
                        if let owner = owners[entry.url] {
                            line.item = owner.item.position
                            line.title = owner.item.title
                            line.thumbnail = owner.isThumbnail
                        } else if let title = pages[entry.url] {
                            line.title = title
                        }
                        if let data = try? encoder.encode(line) { StandardStream.output(data + Data("\n".utf8)) }
                    }
                    return
                }
                if entries.isEmpty {
                    StandardStream.line("The cache in \(cache.directory) is empty.")
                    return
                }
                let terminal = TerminalInfo.standardOutput()
                var table = Table(columns: [
                    .init("#", alignRight: true), .init("TITLE", minimumWidth: 12, shrinkWeight: 3), .init("STATE", minimumWidth: 10),
                    .init("SIZE", alignRight: true), .init("LAST USED"),
                ])
                for entry in entries {
                    let (state, size) = EntryText.describe(entry.status)
                    let owner = owners[entry.url]
                    table.append([
                        Table.Cell(owner.map { "\($0.item.position)" } ?? ""),
                        // Not in the feed (any more): the URL says what it is.
                        Table.Cell(owner.map { $0.isThumbnail ? "\($0.item.title) (thumbnail)" : $0.item.title } ?? pages[entry.url] ?? entry.url.redactingUserinfo),
                        Table.Cell(state), Table.Cell(size), Table.Cell(FeedLoading.localTime(entry.lastAccess.timeIntervalSince1970)),
                    ])
                }
                StandardStream.line(table.render(maximumWidth: terminal.width, colors: terminal.colors).joined(separator: "\n"))
            }
        }

        /// The feed's items by the URLs they download (media and thumbnail);
        /// empty when the feed cannot be read, so the cache still lists.
        static func owners(_ global: GlobalOptions) -> [String: (item: FeedItem, isThumbnail: Bool)] {
            guard let location = try? global.feedLocation(),
                  let loaded = try? FeedLoading.load(location, cacheDirectory: global.cacheDirectory, announce: false) else { return [:] }
            var owners: [String: (item: FeedItem, isThumbnail: Bool)] = [:]
            for item in loaded.feed.items {
                if case let .remote(url)? = item.thumbnail, owners[url.absoluteString] == nil { owners[url.absoluteString] = (item, true) }
            }
            for item in loaded.feed.items {
                if case let .remote(url)? = item.source { owners[url.absoluteString] = (item, false) }
            }
            return owners
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the cached or partial downloads of items.",
            discussion: "Each item's media file is removed from the cache (its thumbnail stays). A download in progress is left alone."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Items by number or id, as 'mediaplay list' shows them.", valueName: "n|id"))
        var items: [String]

        func validate() throws {
            if items.isEmpty { throw ValidationError("name at least one item, e.g. 'mediaplay cache remove 3'") }
        }

        func run() throws {
            try runReportingErrors {
                let loaded = try FeedLoading.load(global)
                let chosen = try ItemSelection.resolve(items, in: loaded.feed, allowInvalid: true)
                let cache = try CacheAccess.open(global)
                var busy: [FeedItem] = []
                for item in chosen {
                    let label = "\(item.position) \"\(DisplayWidth.singleLine(item.title))\""
                    guard case let .remote(url)? = item.source else {
                        StandardStream.line("\(label): \(item.source == nil ? "no media" : "a local file"); nothing cached")
                        continue
                    }
                    let removal: MediaCache.Removal
                    do throws(CacheError) { removal = try cache.removeEntry(for: url) } catch { throw CLIError(error.description, exitCode: .ioError) }
                    switch removal {
                    case let .removed(bytes): StandardStream.line("\(label): removed, \(formatByteCount(bytes)) freed")
                    case .absent: StandardStream.line("\(label): not in the cache")
                    case .busy: busy.append(item)
                    }
                }
                if let first = busy.first {
                    throw CLIError(
                        "item \(first.position) \"\(DisplayWidth.singleLine(first.title))\" is downloading; nothing of it was removed (try again when it ends)",
                        exitCode: .unavailable
                    )
                }
            }
        }
    }

    struct Size: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the bytes the cache takes on disk.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print only the number of bytes.")
        var bytes = false

        func run() throws {
            try runReportingErrors {
                let cache = try CacheAccess.open(global)
                let total = cache.totalSize()
                StandardStream.line(bytes ? "\(total)" : "\(formatByteCount(total))  \(cache.directory)")
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every cached and partial download not in use.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try runReportingErrors {
                let cache = try CacheAccess.open(global)
                let result: (removed: Int, bytes: Int64, busy: Int)
                do throws(CacheError) { result = try cache.clear() } catch { throw CLIError(error.description, exitCode: .ioError) }
                var text = "Removed \(result.removed) entr\(result.removed == 1 ? "y" : "ies"), \(formatByteCount(result.bytes)) freed."
                if result.busy > 0 { text += " \(result.busy) in use by a running download kept." }
                StandardStream.line(text)
            }
        }
    }
}

/// `cache list --json`: one object per line.
struct CacheEntryJSON: Encodable {
    var url: String
    var path: String
    var state: String
    var size: Int64?
    var received: Int64?
    var error: String?
    var contentType: String?
    var lastAccess: Double
    /// The feed item that downloads this URL, when the feed has one.
    var item: Int?
    var title: String?
    /// Whether the URL is that item's thumbnail rather than its media.
    var thumbnail: Bool?

    init(_ entry: CacheEntryInfo) {
        url = entry.url.redactingUserinfo
        path = entry.path
        contentType = entry.contentType
        lastAccess = entry.lastAccess.timeIntervalSince1970
        switch entry.status {
        case .notDownloaded: state = "not-downloaded"
        case let .downloading(received, total): state = "downloading"; self.received = received; size = total
        case let .partial(received, total): state = "partial"; self.received = received; size = total
        case let .cached(size): state = "cached"; self.size = size
        case let .failed(reason, received): state = "failed"; error = reason; self.received = received
        }
    }
}
