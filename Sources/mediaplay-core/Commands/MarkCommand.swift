import ArgumentParser
import Foundation
import MediaCacheCommands
import MediaFeed
import MediaFeedLoading
import MediaListing
import MediaModel
import MediaplayCommandLine
import MediaState
import MediaTerminal
import MediaplayCommon

/// `mediaplay mark N... played|unplayed|old`: a podcast client's marks, by hand.
struct MarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Mark items played or unplayed, or no longer new.",
        discussion: """
            An item played to its last 10 seconds (or its last 1 %, if shorter) \
            is marked played by itself; `list` shows ✓ before it, and • before an \
            item that appeared in the feed since it was first read. `list --unplayed` \
            lists the rest.

            Examples:
              mediaplay mark 3 played
              mediaplay mark 3 4 5 unplayed
              mediaplay mark 7 old
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Item numbers or ids, then played, unplayed or old.", valueName: "n|id ... played|unplayed|old"))
    var words: [String] = []

    func run() throws {
        try runReportingErrors {
            guard let mark = words.last, ["played", "unplayed", "old"].contains(mark), words.count >= 2 else {
                throw CLIError("mark takes items, then played, unplayed or old (mediaplay mark 3 played)", exitCode: .usage)
            }
            let loaded = try FeedLoading.load(global)
            let items = try ItemSelection.resolve(Array(words.dropLast()), in: loaded.feed)
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
            for item in items {
                guard let url = item.source?.description else {
                    throw CLIError("item \(item.position) \"\(item.title)\" is text only: it has no media to mark", exitCode: .dataError)
                }
                do throws(StateStoreError) {
                    switch mark {
                    case "played":
                        try store.setPlayed(true, for: url)
                        try store.markSeen(in: loaded.identity, ids: [item.id])
                    case "unplayed": try store.setPlayed(false, for: url)
                    default: try store.markSeen(in: loaded.identity, ids: [item.id])
                    }
                } catch {
                    throw CLIError(error.description, exitCode: .ioError)
                }
                print("\(item.position) \(DisplayWidth.escaped(DisplayWidth.singleLine(item.title))): \(mark)")
            }
        }
    }
}
