import ArgumentParser
import Foundation
import MediaCacheFolder
import MediaFeed
import MediaModel
import MediaState
import MediaTerminal
import MediaplayCommon

/// `list`'s options, for mediaplay-core's command and the quick path.
public struct ListOptions: ParsableArguments {
    public init() {}

    @OptionGroup public var global: GlobalOptions

    @Flag(name: .long, help: "Print a JSON document instead of a table.")
    public var json = false

    @Flag(name: .long, help: "Fetch a remote feed whole from its server, never the copy kept for offline use.")
    public var refresh = false

    @Flag(name: .long, help: "Only the items not played to their end yet (their numbers stay the feed's).")
    public var unplayed = false

    @Option(name: .long, help: ArgumentHelp("Only the items whose title, artist, album, description or file name contain every word (case and accents aside).", valueName: "text"))
    public var grep: String?

    @Option(name: .long, help: ArgumentHelp("Only the items of this kind.", valueName: "audio|video|image"))
    public var kind: MediaKind?

    @Option(name: .long, help: ArgumentHelp("The order: position (the feed's), title, artist, album, duration or date.", valueName: "key"))
    public var sort: ListSort = .position

    @Flag(name: .long, help: "The other way round.")
    public var reverse = false

    @Option(name: .long, help: ArgumentHelp("The table's columns, in order: number, kind, title, artist, album, date, state, position (where an item was left), duration, size (default: those with something to show).", valueName: "list"))
    public var columns: ListColumns?
}

/// How `list --sort` orders the items (their numbers stay the feed's).
public enum ListSort: String, ExpressibleByArgument, CaseIterable, Sendable {
    case position, title, artist, album, duration, date
}

extension MediaKind: ExpressibleByArgument {
    /// By name (`--kind audio`), never by the JSON feed's number.
    public init?(argument: String) {
        guard let kind = MediaKind.allCases.first(where: { $0.name == argument.lowercased() }) else { return nil }
        self = kind
    }

    public static var allValueStrings: [String] { allCases.map(\.name) }
}

/// What `list` prints, from a loaded feed, the cache and the items'
/// details: one path for mediaplay-core and the quick path.
public enum Listing {
    /// What `list` shows beside the feed: the cache as read once, and what
    /// the background player is doing with which items.
    public struct Surroundings: Sendable {
        public var cache: CacheSnapshot?
        public var active: [ItemKey: ItemStatus]
        /// The state database (played marks, items seen), when it opens.
        public var state: StateStore?
    }

    /// The cache as read once and the background player's items, and why
    /// the cache could not be read when it is there but could not be.
    /// `writable` (mediaplay-core): details probed are kept, in a cache
    /// folder made for them if there is none yet (quietly left out when it
    /// cannot be made); otherwise the index is only read.
    public static func surroundings(_ global: GlobalOptions, writable: Bool) -> (Surroundings, problem: String?) {
        let active = BackgroundPlayer.activeItems(global)
        // Marks are a nicety: a state folder that cannot be used leaves them out.
        let state = try? StateStore(path: BackgroundPlayer.stateDirectory(global) + "/positions.sqlite")
        let directory = global.cacheDirectory
        guard FileManager.default.fileExists(atPath: directory + "/index.sqlite") else {
            let made = writable ? try? CacheFolder.shared(directory: directory) : nil
            return (Surroundings(cache: try? made?.snapshot(), active: active, state: state), nil)
        }
        do {
            let folder = noteRecovery(writable ? try CacheFolder.shared(directory: directory) : try CacheFolder.forViewing(directory: directory))
            return (Surroundings(cache: try folder.snapshot(), active: active, state: state), nil)
        } catch {
            return (Surroundings(cache: nil, active: active, state: state), error.description)
        }
    }

    /// Notes about the feed (skipped rows), then the table or the JSON
    /// document. Throws when stdout fails (a closed pipe just ends it).
    public static func print(_ loaded: LoadedFeed, around surroundings: Surroundings, details: [MediaDetails?], options: ListOptions) throws(CLIError) {
        noteAll(of: loaded)
        let items = loaded.feed.items
        let marks = Marks(surroundings)
        // A list shows what it can: new items not kept are not its failure.
        let fresh = (try? surroundings.state?.newItems(in: loaded.identity, ids: items.map(\.id))) ?? []
        // Rows are independent: made in two halves side by side (a tenth of a large list).
        var rows = InHalves.map(items.count) { index in
            marks.row(items[index], details: details[index]) { !fresh.isEmpty && fresh.contains($0) }
        }
        var loaded = loaded
        // Filters and the order: the feed's own numbers stay.
        var kept = Array(items.indices)
        if options.unplayed { kept = kept.filter { items[$0].source != nil && !rows[$0].played } }
        if let kind = options.kind { kept = kept.filter { items[$0].kind == kind } }
        if let query = options.grep {
            kept = ItemSearch(items: items, details: details).matches(query, among: kept)
        }
        kept = ListOrder.sorted(kept, by: options.sort, items: items, rows: rows)
        if options.reverse { kept.reverse() }
        if kept.count != items.count || options.sort != .position || options.reverse {
            loaded.feed.items = kept.map { items[$0] }
            rows = kept.map { rows[$0] }
        }
        var failure: Int32 = 0
        let output: ([UInt8]) -> Bool = { bytes in
            failure = writeAll(bytes)
            return failure == 0
        }
        defer { keepToExit((items, details, loaded, rows)) }
        if options.json {
            // Straight from the bytes: a copy into Data cost a tenth of a large list.
            ListDocument.write(loaded, rows: rows, to: output)
        } else {
            let terminal = TerminalInfo.standardOutput()
            let shown = options.grep != nil || options.kind != nil || options.unplayed ? items.count : nil
            _ = output(Array(ListRenderer.render(feed: loaded.feed, rows: rows, width: terminal.width, colors: terminal.colors, columns: options.columns?.names, of: shown).utf8))
        }
        try check(failure)
    }

    /// A failed write of the list as one line (a closed pipe just ends it).
    static func check(_ failure: Int32) throws(CLIError) {
        if failure != 0 && failure != EPIPE {
            throw CLIError("cannot write the list: \(String(cString: strerror(failure)))", exitCode: .ioError)
        }
    }

    /// A list that is the process ends with it: its memory goes back whole,
    /// where freeing a large feed's items and rows one by one took a
    /// twentieth of the list. (A command a test runs in its own process
    /// frees them.)
    static func keepToExit<Value>(_ value: Value) {
        if case .process = CommandContext.current.environmentSource {
            _ = Unmanaged.passRetained(KeptToExit(value))
        }
    }

    /// What a row shows beside its item: the cache's state, played marks,
    /// where it was left, what the background player is doing with it.
    struct Marks: Sendable {
        let cache: CacheSnapshot?
        let played: Set<String>
        /// Where items were left part way, in any player of this user.
        let leftAt: [String: Double]
        let active: [ItemKey: ItemStatus]

        init(_ surroundings: Surroundings) {
            cache = surroundings.cache
            played = surroundings.state?.playedURLs() ?? []
            leftAt = surroundings.state?.all() ?? [:]
            active = surroundings.active
        }

        /// The item's row; `isNew` says whether its id is new in the feed.
        func row(_ item: FeedItem, details: MediaDetails?, isNew: (String) -> Bool) -> ItemRow {
            var row = ItemRow(item, cache: cache)
            row.details = details
            if !played.isEmpty || !leftAt.isEmpty, let url = item.source?.description {
                if played.contains(url) { row.played = true }
                row.resumeAt = leftAt[url]
            }
            row.isNew = !row.played && isNew(item.id)
            // By key: the item this row shows, whatever its number in the player.
            if !active.isEmpty, let playback = active[item.key] { row.show(playback) }
            return row
        }
    }

    /// The feed's notes (skipped rows, mended XML), a line each on stderr.
    static func noteAll(of loaded: LoadedFeed) {
        for note in loaded.feed.notes { StandardStream.error("mediaplay: note: \(DisplayWidth.escaped(note))\n") }
        noteRepairs(of: loaded.feed, source: loaded.source)
    }

    /// A feed read by mending it says so, in one line (`repaired` in the
    /// JSON): in a list, and when an item of it plays.
    public static func noteRepairs(of feed: Feed, source: String) {
        guard !feed.repairs.isEmpty else { return }
        StandardStream.error("mediaplay: note: \(DisplayWidth.escaped(DisplayWidth.singleLine(source.redactingUserinfo))) is not well-formed; read by mending it: \(DisplayWidth.escaped(feed.repairs.joined(separator: "; ")))\n")
    }

    /// Says why cache states are missing from a list.
    public static func noteUnreadableCache(_ problem: String) {
        StandardStream.error("mediaplay: \(DisplayWidth.escaped(problem)); cache states are not shown\n")
    }

    /// Says once that a damaged index was rebuilt.
    public static func noteRecovery(_ folder: CacheFolder) -> CacheFolder {
        if let aside = folder.recoveredIndex {
            StandardStream.error("mediaplay: the cache index was damaged and has been rebuilt from the cached files (partial downloads start over; the old index is kept at \(aside))\n")
        }
        return folder
    }

    /// Writes all of `bytes` to stdout: 0, or the errno that stopped it.
    static func writeAll(_ bytes: [UInt8]) -> Int32 {
        let sink = CommandContext.current.output
        guard case let .descriptor(descriptor) = sink else {
            StandardStream.write(bytes, to: sink)
            return 0
        }
        return bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return written < 0 ? errno : EIO }
                offset += written
            }
            return 0
        }
    }
}

/// `list` without FFmpeg, SDL or libcurl loaded, in the `mediaplay` program:
/// a local feed whose files' details are all in the index is listed here;
/// anything more (a remote feed to revalidate, a file to probe, help or a
/// usage error) is left to mediaplay-core, which lists the same way.
public enum QuickList {
    /// The exit status when listed here; nil: run mediaplay-core instead.
    public static func run(_ arguments: [String]) -> Int32? {
        guard let options = quickOptions(arguments), !options.refresh,
              let location = try? options.global.feedLocation(), !location.contains("://")
        else { return nil }
        do throws(CLIError) {
            var loaded: LoadedFeed
            do {
                loaded = try FeedFile.load(absolutePath(location), shownAs: location)
            } catch {
                throw CLIError(error)
            }
            // A cache that cannot be read is left to mediaplay-core to say.
            let (surroundings, problem) = Listing.surroundings(options.global, writable: false)
            guard problem == nil else { return nil }
            let known = KnownDetails(loaded.feed.items, snapshot: surroundings.cache)
            guard known.unprobed.isEmpty else { return nil }
            // Files with sound not measured yet are measured in the background.
            if !known.unmeasured.isEmpty { LoudnessLauncher.start(options.global) }
            loaded.applyFileDetails(known.details)
            try Listing.print(loaded, around: surroundings, details: loaded.details ?? known.details, options: options)
            return 0
        } catch {
            error.report()
            return error.exitCode.rawValue
        }
    }

    /// The spellings `list` takes, read by hand: ArgumentParser's reflection
    /// cost about 7 ms, a tenth of a large quick list. Anything else (help,
    /// an unknown or misspelt option) is nil and left to mediaplay-core,
    /// which parses it properly.
    package static func quickOptions(_ arguments: [String]) -> ListOptions? {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--json", "--refresh", "--unplayed":
                flags.insert(argument)
            case "--feed", "--cache-dir", "--runtime-dir":
                guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
                values[argument] = arguments[index]
                index += 1
            default:
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, ["--feed", "--cache-dir", "--runtime-dir"].contains(parts[0]) else { return nil }
                values[parts[0]] = parts[1]
            }
        }
        var global = GlobalOptions()
        global.feed = values["--feed"]
        global.cacheDir = values["--cache-dir"]
        global.runtimeDir = values["--runtime-dir"]
        var options = ListOptions()
        options.global = global
        options.json = flags.contains("--json")
        options.refresh = flags.contains("--refresh")
        options.unplayed = flags.contains("--unplayed")
        // Every option set: a wrapper left unset traps when read.
        options.grep = nil
        options.kind = nil
        options.sort = .position
        options.reverse = false
        options.columns = nil
        return options
    }
}

/// What the quick list leaves for the process's end to free.
private final class KeptToExit<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Listing {
    /// `list --json` made as a feed's items come (a server's pages, 500 at a
    /// time): each run's rows and JSON made at once, while the server makes
    /// the next, and the document written once the feed is whole and read
    /// without failing (a failed read prints nothing, as ever). Only for the
    /// feed's own order with nothing left out: the same document as
    /// `print` makes (a 10,000-item DLNA list: its rows and JSON had taken
    /// 10 ms after the last page).
    public final class Streamed {
        let identity: String
        let surroundings: Surroundings
        let marks: Marks
        /// Which ids are new, as the feed's read will record it.
        let rule: NewItemsRule?
        private var pieces: [[UInt8]] = []
        private var count = 0

        /// Whether `options` ask for the feed's order in JSON, nothing left out.
        public static func serves(_ options: ListOptions) -> Bool {
            options.json && options.sort == .position && !options.reverse && !options.unplayed && options.grep == nil && options.kind == nil
        }

        /// nil when `options` ask for anything but the feed's order in JSON.
        public init?(options: ListOptions, identity: String, surroundings: Surroundings) {
            guard Self.serves(options) else { return nil }
            self.identity = identity
            self.surroundings = surroundings
            marks = Marks(surroundings)
            rule = surroundings.state?.newItemsRule(in: identity)
        }

        /// The cache and marks it was made with (the plain list's too, when
        /// the feed came whole from a kept copy).
        public var around: Surroundings { surroundings }

        /// The feed's next items, in order, as read.
        public func add(_ items: ArraySlice<FeedItem>, details: ArraySlice<MediaDetails?>) {
            guard !items.isEmpty else { return }
            let rule = rule
            let rows = zip(items, details).map { item, details in marks.row(item, details: details) { rule?.isNew($0) == true } }
            pieces.append(ListDocument.piece(items, rows: rows[...], first: count == 0))
            count += items.count
        }

        /// Prints the list when what came is the whole feed, read (true);
        /// false when the feed came otherwise (a kept copy, fresh or the
        /// offline fallback) or its ids cannot be recorded, for `print` to
        /// list as it lists anything.
        public func print(_ loaded: LoadedFeed) throws(CLIError) -> Bool {
            guard count > 0, loaded.offlineNotice == nil, loaded.identity == identity, loaded.feed.items.count == count else { return false }
            // Its ids recorded as `print` records them (the rule said which
            // are new); a store that cannot record them makes nothing new there.
            if let state = surroundings.state, (try? state.newItems(in: identity, ids: loaded.feed.items.map(\.id))) == nil { return false }
            noteAll(of: loaded)
            var failure: Int32 = 0
            for bytes in [ListDocument.header(loaded)] + pieces + [ListDocument.footer(hasItems: true)] {
                failure = writeAll(bytes)
                if failure != 0 { break }
            }
            keepToExit((loaded, pieces))
            try check(failure)
            return true
        }
    }
}
