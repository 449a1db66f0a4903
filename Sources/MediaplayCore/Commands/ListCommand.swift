import ArgumentParser
import CLinux
import Foundation
import MediaCache
import MediaCacheFolder
import MediaplayCommandLine
import MediaFeed
import MediaSession
import MediaListing
import MediaFeedLoading
import MediaWiring
import MediaplayCommon
import MediaServers

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the feed's items and their state.",
        discussion: """
            Columns: # (the number other commands take), kind, title (✓ played, \
            • new), artist and album (once a file's tags say them), date (when the \
            feed dates its items), state, position (where an item was left part \
            way, in any player; it resumes there), duration (once an item's file is \
            cached or local) and size; --columns chooses them. The state \
            is the cache's (or the local file's), preceded by the background \
            player's when it is playing, showing, buffering or pausing the item. \
            Titles are cut to fit the terminal; --json prints everything, with the \
            files' tags and format, in the format described in docs/FEED.md. A \
            remote feed is revalidated with its server each time; when the server \
            cannot be reached, the copy kept from last time is listed, with a notice. \
            A media server's library (subsonic+https://USER@HOST, \
            upnp+http://HOST:PORT/rootDesc.xml) is kept for an hour; --refresh reads \
            it again.

            Examples:
              mediaplay list
              mediaplay list --json
              mediaplay list --feed "subsonic+https://alice@music.example.org"
              mediaplay list --columns title,date,position --sort date --reverse
              COLUMNS=60 mediaplay list --feed feed.json | less
            """
    )

    @OptionGroup var options: ListOptions

    func run() throws {
        // A list is one short process: a large one (a server's 10,000 items)
        // paged in a fifth of its memory twice, for 10 % of its CPU. (It is
        // process-wide: a test's in-process list sets it for the test run.
        // Set only for a list that is the process, the test run crashed in
        // two runs of eleven on a heap fault not yet found: kept as it was.)
        mp_keep_freed_memory()
        try runReportingErrors {
            // A feed from a server into a cache with no index yet (nothing
            // kept: it is read from the server): libcurl's loading and set-up
            // begin beside the index's making. (With an index, a kept copy
            // may serve, and libcurl is loaded when first needed.)
            if (try? options.global.feedLocation())?.contains("://") == true,
               !FileManager.default.fileExists(atPath: options.global.cacheDirectory + "/index.sqlite") {
                CurlGlobal.begin()
            }
            defer { CurlGlobal.settle() }
            // One open of the cache's index for the whole list (a folder's
            // details, then the list's states), held to the end.
            let index = try? CacheFolder.shared(directory: options.global.cacheDirectory)
            defer { withExtendedLifetime(index) {} }
            // A server's tree in its own order as JSON: made as its pages come.
            var streamed: Listing.Streamed?
            if Listing.Streamed.serves(options), let identity = (try? options.global.feedLocation()).flatMap(ServerFeeds.readInOrder) {
                let (around, problem) = Listing.surroundings(options.global, writable: true)
                if problem == nil { streamed = Listing.Streamed(options: options, identity: identity, surroundings: around) }
            }
            let loaded = try FeedLoading.load(options.global, refresh: options.refresh, itemsAsRead: streamed.map { list in { list.add($0, details: $1) } })
            let (surroundings, problem) = streamed.map { ($0.around, nil) } ?? Listing.surroundings(options.global, writable: true)
            if let problem { Listing.noteUnreadableCache(problem) }
            let details = loaded.details ?? ItemDetails.lookup(loaded.feed.items, snapshot: surroundings.cache)
            // Files with sound not measured yet are measured in the background.
            if LoudnessLauncher.anyUnmeasured(details) { LoudnessLauncher.start(options.global) }
            if try streamed?.print(loaded) == true { return }
            try Listing.print(loaded, around: surroundings, details: details, options: options)
        }
    }
}
