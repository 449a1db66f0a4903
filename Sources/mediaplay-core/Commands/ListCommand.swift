import ArgumentParser
import Foundation
import MediaplayCommandLine
import MediaFeed
import MediaSession
import MediaTerminal

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the feed's items and their state.",
        discussion: """
            Columns: # (the number other commands take), kind, title, state, \
            duration (once an item's file is cached or local) and size. The state \
            is the cache's (or the local file's), preceded by the background \
            player's when it is playing, showing, buffering or pausing the item. \
            Titles are cut to fit the terminal; --json prints everything, with the \
            files' tags and format, in the format described in docs/FEED.md. A \
            remote feed is revalidated with its server each time; when the server \
            cannot be reached, the copy kept from last time is listed, with a notice.

            Examples:
              mediaplay list
              mediaplay list --json
              COLUMNS=60 mediaplay list --feed feed.json | less
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print a JSON document instead of a table.")
    var json = false

    @Flag(name: .long, help: "Fetch a remote feed whole from its server, never the copy kept for offline use.")
    var refresh = false

    func run() throws {
        try runReportingErrors {
            let loaded = try FeedLoading.load(global, refresh: refresh)
            for note in loaded.feed.notes { FileHandle.standardError.write(Data("mediaplay: note: \(DisplayWidth.escaped(note))\n".utf8)) }
            let cache = CacheAccess.openIfPresent(global)
            let active = BackgroundPlayer.activeItems(global)
            let details = ItemDetails.lookup(loaded.feed.items, cache: cache)
            let rows = zip(loaded.feed.items, details).map { item, details in
                var row = ItemRow(item, cache: cache)
                row.details = details
                // By key: the item this row shows, whatever its number in the player.
                if let playback = active[item.key] { row.show(playback) }
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
        // Straight from the bytes: a copy into Data cost a tenth of a large list.
        let bytes = ListDocument.write(loaded, rows: rows)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // a closed pipe: nothing more to say
                offset += written
            }
        }
    }
}
