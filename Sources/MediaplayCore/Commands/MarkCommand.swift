import ArgumentParser
import Foundation
import MediaCacheCommands
import MediaFeed
import MediaFeedLoading
import MediaListing
import MediaModel
import MediaplayCommandLine
import MediaServers
import MediaState
import MediaTerminal
import MediaplayCommon

/// `mediaplay mark N... played|unplayed|old`: a podcast client's marks, by hand.
struct MarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Mark items played or unplayed, or no longer new (or starred on a Subsonic server).",
        discussion: """
            An item played to its last 10 seconds (or its last 1 %, if shorter) \
            is marked played by itself; `list` shows ✓ before it, and • before an \
            item that appeared in the feed since it was first read. `list --unplayed` \
            lists the rest. Items are numbers, ranges (3-7), lists (3,5,9) or ids; \
            --all marks every item with media. Marking an item played also forgets \
            where it was left (its next start is at the top).

            On a Subsonic server's library, starred and unstarred set the \
            server's star on songs (Subsonic's star and unstar): other clients \
            see it.

            Examples:
              mediaplay mark 3 played
              mediaplay mark 3 starred
              mediaplay mark 3 4 5 unplayed
              mediaplay mark 10-20 played
              mediaplay mark --all old
              mediaplay mark 7 old
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Every item of the feed that has media.")
    var all = false

    @Argument(help: ArgumentHelp("Item numbers, ranges (3-7), lists (3,5) or ids, then played, unplayed, old, starred or unstarred.", valueName: "n|n-m|id ... played|unplayed|old|starred|unstarred"))
    var words: [String] = []

    func run() throws {
        try runReportingErrors {
            guard let mark = words.last, ["played", "unplayed", "old", "starred", "unstarred"].contains(mark), all ? words.count == 1 : words.count >= 2 else {
                throw CLIError(
                    all ? "mark --all takes played, unplayed or old alone (mediaplay mark --all played)" : "mark takes items, then played, unplayed or old, or starred or unstarred on a Subsonic server (mediaplay mark 3-7 played, or --all)",
                    exitCode: .usage
                )
            }
            let loaded = try FeedLoading.load(global)
            let items = all ? loaded.feed.items.filter { $0.isValid && $0.source != nil } : try ItemSelection.resolve(Array(words.dropLast()), in: loaded.feed)
            if mark == "starred" || mark == "unstarred" {
                // The server keeps stars, not this machine.
                try ServerFeeds.star(items, on: mark == "starred")
                for item in items.prefix(20) { print("\(item.position) \(DisplayWidth.escaped(DisplayWidth.singleLine(item.title))): \(mark)") }
                if items.count > 20 { print("\(items.count) items: \(mark)") }
                return
            }
            let path = BackgroundPlayer.stateDirectory(global) + "/positions.sqlite"
            let store: StateStore
            do {
                store = try StateStore(path: path)
                // Nothing is said to be marked that was not saved.
                try store.checkWritable()
            } catch let error as StateStoreError {
                throw CLIError(error.description, exitCode: .ioError)
            } catch {
                throw CLIError("cannot open the state database at \(path): \(error)", exitCode: .ioError)
            }
            if let textOnly = items.first(where: { $0.source == nil }) {
                throw CLIError("item \(textOnly.position) \"\(textOnly.title)\" is text only: it has no media to mark", exitCode: .dataError)
            }
            let urls = items.compactMap { $0.source?.description }
            do throws(StateStoreError) {
                switch mark {
                case "played":
                    try store.setPlayed(true, for: urls)
                    try store.markSeen(in: loaded.identity, ids: items.map(\.id))
                case "unplayed": try store.setPlayed(false, for: urls)
                default: try store.markSeen(in: loaded.identity, ids: items.map(\.id))
                }
            } catch {
                throw CLIError(error.description, exitCode: .ioError)
            }
            // One line an item; a long run (--all) in one line.
            if items.count > 20 {
                StandardStream.line("\(items.count) items: \(mark)")
            } else {
                for item in items { StandardStream.line("\(item.position) \(DisplayWidth.escaped(DisplayWidth.singleLine(item.title))): \(mark)") }
            }
        }
    }
}
