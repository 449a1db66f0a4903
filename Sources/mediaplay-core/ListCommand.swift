import ArgumentParser
import Foundation
import MediaplayCommandLine
import MediaFeed
import MediaTerminal

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the feed's items and their state.",
        discussion: """
            Columns: # (the number other commands take), kind, title, state and size. \
            The state is the cache's (or the local file's), preceded by the \
            background player's when it is playing, showing, buffering or pausing \
            the item. Titles are cut to fit the terminal; --json prints everything, \
            in the format described in docs/FEED.md.

            Examples:
              mediaplay list
              mediaplay list --json
              COLUMNS=60 mediaplay list --feed feed.json | less
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print a JSON document instead of a table.")
    var json = false

    func run() throws {
        try runReportingErrors {
            let loaded = try FeedLoading.load(try global.feedLocation())
            let cache = CacheAccess.openIfPresent(global)
            let active = BackgroundPlayer.activeItems(global)
            let rows = loaded.feed.items.map { item in
                var row = ItemRow(item, cache: cache)
                // By number and id: the player may hold an older copy of the feed.
                if let playback = active[item.position], playback.id == item.id { row.show(playback) }
                return row
            }
            if json {
                try printJSON(loaded, rows: rows)
            } else {
                printTable(loaded, rows: rows)
            }
        }
    }

    private func printTable(_ loaded: LoadedFeed, rows: [ItemRow]) {
        let terminal = TerminalInfo.detect(fd: STDOUT_FILENO, environment: ProcessInfo.processInfo.environment)
        let output = ListRenderer.render(feed: loaded.feed, rows: rows, width: terminal.width, colors: terminal.colors)
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    private func printJSON(_ loaded: LoadedFeed, rows: [ItemRow]) throws {
        let document = ListDocument(
            schema: ListDocument.schemaName,
            feed: .init(title: loaded.feed.title, source: loaded.source),
            items: zip(loaded.feed.items, rows).map { item, row in
                ListDocument.Item(
                    position: item.position, id: item.id, kind: item.kind?.name, title: item.title,
                    url: item.source?.description, description: item.description,
                    thumbnail: item.thumbnail?.description, state: row.state.rawValue,
                    size: row.size, received: row.received, error: row.detail, line: item.location.line,
                    playback: row.playback.map(ListDocument.Item.Playback.init)
                )
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(document)
        } catch {
            throw CLIError("could not encode the list as JSON: \(error)", exitCode: .failure)
        }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
