import ArgumentParser
import Foundation
import Synchronization
import MediaModel
import MediaplayCommandLine
import MediaCache
import MediaCacheFolder
import MediaListing
import MediaFeed
import MediaFeedLoading
import MediaInterfaces
import MediaTerminal
import MediaplayCommon

package struct FetchCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download items into the cache ahead of time, with progress.",
        discussion: """
            Each remote item is downloaded once into the cache (see 'mediaplay cache'); \
            an interrupted download resumes where it stopped. Cached items are not \
            fetched again unless you pass --refresh, which asks the server whether \
            they changed and keeps the cached file when they did not.

            Items are numbers, ranges (3-7), lists (3,5,9) or ids. --new fetches \
            the items not played yet (✓ in list marks the played ones; the new ones, \
            •, are among them), newest first; --limit N only the N newest.

            Examples:
              mediaplay fetch 3                 one item, by number
              mediaplay fetch sintel 5          by id and number
              mediaplay fetch 10-20             a range
              mediaplay fetch --new --limit 3   the three newest episodes not played yet
              mediaplay fetch --all --jobs 8    everything, eight at a time
              mediaplay fetch --all --refresh   revalidate what is cached
            """
    )

    package init() {}

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Items to fetch: numbers from 'mediaplay list' or ids.", valueName: "n|id"))
    var items: [String] = []

    @Flag(name: .long, help: "Fetch every valid remote item of the feed.")
    var all = false

    @Flag(name: .long, help: "Fetch the items not played yet, newest first.")
    var new = false

    @Option(name: .long, help: ArgumentHelp("With --new: at most this many (the newest).", valueName: "n"))
    var limit: Int?

    @Flag(name: .long, help: "Revalidate cached items with the server; download again only what changed.")
    var refresh = false

    @Option(name: .long, help: "Downloads running at once.")
    var jobs = 4

    @Option(name: .customLong("max-size"), help: ArgumentHelp("Refuse files larger than this (e.g. 500M, 4G; config [cache] max-size; default 4G).", valueName: "size"))
    var maxSizeOption: String?

    /// --max-size, else config.toml's, else 4G.
    var maxSize: String { maxSizeOption ?? ConfiguredDefaults.values.maxSize ?? "4G" }

    package func validate() throws {
        if items.isEmpty && !all && !new { throw ValidationError("name the items to fetch, or pass --new or --all") }
        if [!items.isEmpty, all, new].filter({ $0 }).count > 1 { throw ValidationError("pass one of item numbers, --new or --all") }
        if limit != nil && !new { throw ValidationError("--limit goes with --new") }
        if let limit, limit < 1 { throw ValidationError("--limit takes a number of items, 1 or more") }
        if jobs < 1 || jobs > 64 { throw ValidationError("--jobs takes 1 to 64") }
        if ByteSize.parse(maxSize) == nil { throw ValidationError("--max-size takes a size like 500M or 4G, not \"\(maxSize)\"") }
    }

    package func run() async throws {
        try await runReportingErrorsAsync {
            let loaded = try FeedLoading.load(global)
            let selected: [FeedItem]
            if all {
                selected = loaded.feed.items.filter(\.isValid)
                if selected.isEmpty {
                    StandardStream.error("mediaplay: nothing to fetch: the feed has no valid items\n")
                    return
                }
            } else if new {
                let unplayed = ItemMarks.read(loaded, global: global).unplayedNewestFirst(loaded.feed.items)
                selected = limit.map { Array(unplayed.prefix($0)) } ?? unplayed
                if selected.isEmpty {
                    StandardStream.error("mediaplay: nothing to fetch: every item with media is played\n")
                    return
                }
            } else {
                selected = try ItemSelection.resolve(items, in: loaded.feed)
            }
            var configuration = CacheConfiguration()
            configuration.maximumSize = ByteSize.parse(maxSize)!
            let cache = try CacheAccess.open(global, configuration: configuration)
            let terminal = TerminalInfo.standardError()
            let display = FetchDisplay(items: selected, terminal: terminal)
            // Ctrl-C or SIGTERM: every transfer stops and writes what it
            // gathered, so the next fetch resumes from there.
            let urls = selected.compactMap { item -> URL? in if case let .remote(url)? = item.source { return url }; return nil }
            let signals = StopOnSignals { _ in for url in urls { cache.cancel(url) } }
            await display.start()
            let failures = await Self.fetchAll(selected, cache: cache, refresh: refresh, jobs: jobs, display: display)
            await display.finish()
            signals.cancel()
            // What is cached now is measured in the background, once.
            let sounding = selected.filter { $0.kind == .audio || $0.kind == .video }
            if signals.signalNumber == nil, !sounding.isEmpty {
                LoudnessLauncher.start(global, targets: all ? nil : sounding.map(LoudnessLauncher.target))
            }
            let retry = (all ? "mediaplay fetch --all" : new ? "mediaplay fetch --new" + (limit.map { " --limit \($0)" } ?? "") : "mediaplay fetch \(items.joined(separator: " "))") + global.givenOptions
            if let number = signals.signalNumber {
                StandardStream.error("mediaplay: stopped; what was downloaded is kept (resume with: \(retry))\n")
                throw ExitCode(128 + number)
            }
            if !failures.isEmpty {
                // An address the server does not know: trying again will not help.
                let gone = failures.allSatisfy { if case let .http(status, _) = $0 { return status == 404 || status == 410 }; return false }
                if gone {
                    throw CLIError(
                        "\(failures.count) of \(selected.count) download\(selected.count == 1 ? "" : "s") failed: not found at the address the feed gives (check the feed's URL for \(failures.count == 1 ? "that item" : "those items"))",
                        exitCode: .unavailable
                    )
                }
                // A local disk problem is an I/O error (74); anything else is the network or server (69).
                let local = failures.contains { if case .diskFull = $0 { return true }; if case .io = $0 { return true }; return false }
                throw CLIError(
                    "\(failures.count) of \(selected.count) download\(selected.count == 1 ? "" : "s") failed (retry: \(retry))",
                    exitCode: local ? .ioError : .unavailable
                )
            }
        }
    }

    /// Runs the downloads, `jobs` at a time; returns the errors of those that failed.
    static func fetchAll(_ items: [FeedItem], cache: MediaCache, refresh: Bool, jobs: Int, display: FetchDisplay) async -> [CacheError] {
        await withTaskGroup(of: CacheError?.self) { group in
            var pending = items[...]
            var failures: [CacheError] = []
            func startNext() {
                guard let item = pending.popFirst() else { return }
                group.addTask { await fetchOne(item, cache: cache, refresh: refresh, display: display) }
            }
            for _ in 0..<min(jobs, items.count) { startNext() }
            for await failure in group {
                if let failure { failures.append(failure) }
                startNext()
            }
            return failures
        }
    }

    /// Web pages as inputs, as the player takes them; its resolver (yt-dlp)
    /// set as the program starts from config.toml (none: pages are off).
    private static let pages = Mutex(PageInputs(resolver: nil))

    package static func usePages(_ resolver: (any PageResolver)?) {
        pages.withLock { $0 = PageInputs(resolver: resolver) }
    }

    private static func fetchOne(_ item: FeedItem, cache: MediaCache, refresh: Bool, display: FetchDisplay) async -> CacheError? {
        guard let source = item.source else { return .unsupported("item \(item.position) is text only: nothing to download") }
        let url: URL
        switch source {
        case let .remote(remote): url = remote
        case let .file(path): url = URL(fileURLWithPath: path)
        }
        // A web page resolved before: its media, yt-dlp not asked again
        // unless that address fails (they expire) or it needs cookies (never kept).
        let pages = pages.withLock { $0 }
        if source.isRemote, let kept = await pages.kept(url, in: cache) {
            if let streamed = await streamed(kept, item: item, display: display) { return streamed }
            if await downloadFiles(kept, item: item, source: source, cache: cache, refresh: refresh, display: display) == nil { return nil }
        }
        let failure = await download(url, item: item, source: source, cache: cache, refresh: refresh, display: display)
        guard failure == .webPage else { return failure }
        let result = await pages.resolve(url, keepingIn: cache)
        let page: ResolvedPage
        switch result {
        case let .success(resolved): page = resolved
        case let .failure(error):
            await display.update(item, .failed(error.description))
            // Pages off: the page stays what the download found, no media file.
            if error == .off { return failure }
            return error == .noResolver ? .unsupported(error.description) : .network(error.description)
        }
        if let streamed = await streamed(page, item: item, display: display) { return streamed }
        return await downloadFiles(page, item: item, source: source, cache: cache, refresh: refresh, display: display)
    }

    /// A page's files (the pictures', the sound's when apart), in turn.
    private static func downloadFiles(
        _ page: ResolvedPage, item: FeedItem, source: MediaSource, cache: MediaCache, refresh: Bool, display: FetchDisplay
    ) async -> CacheError? {
        for media in page.files {
            if let failure = await download(media.url, headers: media.headers, item: item, source: source, cache: cache, refresh: refresh, display: display) { return failure }
        }
        return nil
    }

    /// A page whose media is a stream (HLS, DASH, live): played, never
    /// downloaded, said as that item's failure.
    private static func streamed(_ page: ResolvedPage, item: FeedItem, display: FetchDisplay) async -> CacheError? {
        guard page.media.isManifest || page.isLive else { return nil }
        let reason = "the page's media is a stream (HLS, DASH or live): it is played, never downloaded"
        await display.update(item, .failed(reason))
        return .unsupported(reason)
    }

    private static func download(
        _ url: URL, headers: [String: String] = [:], item: FeedItem, source: MediaSource, cache: MediaCache, refresh: Bool, display: FetchDisplay
    ) async -> CacheError? {
        for await event in cache.download(url, refresh: refresh, headers: headers) {
            switch event {
            case let .progress(progress):
                await display.update(item, .active(progress))
            case let .finished(path, alreadyCached):
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
                await display.update(item, .done(size: size, alreadyCached: alreadyCached && !refresh, local: !source.isRemote))
                return nil
            case let .failed(error):
                // A web page is no failure yet: yt-dlp may find its media.
                if error != .webPage { await display.update(item, .failed(error.description)) }
                return error
            }
        }
        return .cancelled
    }
}
