import ArgumentParser
import Foundation
import MediaControl
import MediaFeed
import MediaModel
import MediaTerminal
import MediaplayCommandLine
import MediaplayCommon

/// `mediaplay open URI...`: what the desktop hands over (the desktop entry
/// runs `mediaplay open %U`; `xdg-open mediaplay://item/ID` comes here), as
/// the command line it stands for, run in this process.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a mediaplay:// link, a file or a URL (what the desktop entry runs).",
        discussion: """
            mediaplay://item/ID plays that item in the background player, as \
            'mediaplay toggle ID' does; ?feed=NAME|PATH|URL names its feed, which \
            must be one of yours: a name or feed in config.toml's [feeds], your \
            default feed, or the background player's. A link can come from any web \
            page, so another feed is asked about when a terminal is at hand (default \
            no) and refused otherwise (exit 77); nothing of it is read, fetched or \
            played first. Media files, folders, playlists and media URLs play here, \
            as 'mediaplay play' does; a podcast or another feed opens in browse \
            (listed when not on a terminal), as --feed does.

            Examples:
              mediaplay open 'mediaplay://item/ep42?feed=news'
              mediaplay open file:///home/me/Music/song.flac
              mediaplay open https://example.org/podcast.xml
            """
    )

    @Argument(help: ArgumentHelp("mediaplay://item/ID, file:// URIs, paths or http(s) URLs.", valueName: "uri"))
    var uris: [String]

    func run() async throws {
        try await runReportingErrorsAsync {
            let arguments = try Self.commandLine(for: uris, onTerminal: CommandContext.current.isTerminal(CommandContext.current.output), confirm: Self.askOnTheTerminal)
            var command = try Mediaplay.parseAsRoot(arguments)
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        }
    }

    /// The command line `uris` stand for. `confirm` says whether a link may
    /// open a feed that is not the user's.
    static func commandLine(for uris: [String], onTerminal: Bool, confirm: (String) -> Bool) throws(CLIError) -> [String] {
        guard let first = uris.first else { throw CLIError("nothing to open (give a mediaplay:// link, a file or a URL)", exitCode: .usage) }
        if FeedDecoder.schemeOf(first) == "mediaplay" {
            guard uris.count == 1 else { throw CLIError("open takes one mediaplay:// link at a time", exitCode: .usage) }
            return try itemLink(first, confirm: confirm)
        }
        let targets = try uris.map { uri throws(CLIError) in try target(uri) }
        // A feed (not a playlist or a folder, which play in turn) is browsed.
        if targets.count == 1, isFeed(targets[0]) {
            return [onTerminal ? "browse" : "list", "--feed", targets[0]]
        }
        return ["play"] + targets
    }

    /// `mediaplay://item/ID[?feed=F]` → `toggle --feed=F -- ID`. A link can
    /// come from anywhere (a web page opens it through xdg-open), so it names
    /// an item of one of the user's own feeds (`OwnFeeds`), never a file or a
    /// URL to play; another feed is played only when `confirm` says so. Its
    /// values are passed as values, never where an option could be read.
    private static func itemLink(_ link: String, confirm: (String) -> Bool) throws(CLIError) -> [String] {
        guard let parts = URLComponents(string: link), parts.host == "item" else {
            throw CLIError("cannot open \"\(link)\": mediaplay links are mediaplay://item/ID (with ?feed=NAME|PATH|URL)", exitCode: .usage)
        }
        // Percent-decoded: a NUL would cut the value short where it becomes
        // an argument, a newline would split a line.
        let id = String(parts.path.drop { $0 == "/" })
        guard !id.isEmpty, !id.contains("/") else {
            throw CLIError("cannot open \"\(link)\": no item id after mediaplay://item/", exitCode: .usage)
        }
        guard !holdsControlCharacters(id) else {
            throw CLIError("cannot open \"\(link)\": its item id holds a control character (fix the link)", exitCode: .usage)
        }
        // Never read as an option, whatever the link says.
        guard !id.hasPrefix("-") else { throw CLIError("cannot open \"\(link)\": an item id does not start with -", exitCode: .usage) }
        // What toggle would play as a file or URL of its own (ToggleCommand.source).
        let scheme = FeedDecoder.schemeOf(id)
        let namesMedia = MediaKind.guess(fromExtension: (id as NSString).pathExtension) != nil && access(id, F_OK) == 0
        guard scheme != "http", scheme != "https", !id.hasPrefix("."), !id.hasPrefix("~"), !namesMedia else {
            throw CLIError("cannot open \"\(link)\": \(id) is a file or URL, and a link names an item of your feed", exitCode: .usage)
        }
        let feeds = parts.queryItems?.filter { $0.name == "feed" } ?? []
        guard feeds.count <= 1 else { throw CLIError("cannot open \"\(link)\": it names more than one feed", exitCode: .usage) }
        guard let feed = feeds.first else { return ["toggle", "--", id] }
        guard let value = feed.value, !value.isEmpty else {
            throw CLIError("cannot open \"\(link)\": its feed= is empty (leave it out for your default feed)", exitCode: .usage)
        }
        guard !holdsControlCharacters(value) else {
            throw CLIError("cannot open \"\(link)\": its feed holds a control character (fix the link)", exitCode: .usage)
        }
        if let own = OwnFeeds.location(named: value) { return ["toggle", "--feed=" + own, "--", id] }
        guard confirm(value) else {
            throw CLIError("refusing \"\(link)\": its feed \(value) is not one of yours (name it in config.toml's [feeds], or import it, to open its links)", exitCode: .noPermission)
        }
        return ["toggle", "--feed=" + BackgroundPlayer.feedIdentity(of: value), "--", id]
    }

    /// NUL, newlines, escapes and the other C0 and C1 controls.
    private static func holdsControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Asks on the terminal (the desktop entry opens one) whether a link may
    /// open `feed`; no without a terminal, or without a yes.
    private static func askOnTheTerminal(_ feed: String) -> Bool {
        guard CommandContext.current.inputIsTerminal else { return false }
        StandardStream.error("Open feed \(DisplayWidth.escaped(feed)) from a link? [y/N] ")
        guard let answer = CommandContext.current.readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// A file URI as its path; a path or an http(s) URL as it is.
    private static func target(_ uri: String) throws(CLIError) -> String {
        switch FeedDecoder.schemeOf(uri) {
        case "file"?:
            guard let url = URL(string: uri), url.isFileURL, !url.path.isEmpty else {
                throw CLIError("cannot open \"\(uri)\": not a file URI", exitCode: .usage)
            }
            return url.path
        case "http"?, "https"?, nil:
            return uri
        case let scheme?:
            throw CLIError("cannot open \"\(uri)\": mediaplay opens mediaplay://, file:, http and https URIs, not \(scheme):", exitCode: .usage)
        }
    }

    /// A podcast or JSON feed (by its content, for a file; by its name, for a
    /// URL), not a playlist or a folder.
    private static func isFeed(_ target: String) -> Bool {
        let playlist = ["m3u", "m3u8", "pls"]
        if let scheme = FeedDecoder.schemeOf(target), scheme == "http" || scheme == "https" {
            let name = URL(string: target)?.pathExtension.lowercased() ?? ""
            return ["xml", "rss", "atom", "json"].contains(name)
        }
        return FeedDecoder.isFeedFile(target) && !playlist.contains(URL(fileURLWithPath: target).pathExtension.lowercased())
    }
}

/// The feeds a mediaplay:// link may name: the named feeds (config.toml's
/// [feeds] and the imported ones, by name or location), the default feed
/// (`--feed`'s fallback), and the feed the background player plays.
enum OwnFeeds {
    /// The feed `value` names among them, as the daemon knows it (an
    /// absolute path or a URL); nil when it names none of them.
    static func location(named value: String) -> String? {
        let environment = CommandContext.current.environment
        if let location = (try? NamedFeeds.location(of: value)) ?? nil { return BackgroundPlayer.feedIdentity(of: location) }
        let wanted = BackgroundPlayer.feedIdentity(of: value)
        var own = ConfiguredDefaults.values.feeds.values.map(BackgroundPlayer.feedIdentity(of:))
        if let fallback = try? GlobalOptions.feedLocation(option: nil, { environment[$0] }) {
            own.append(BackgroundPlayer.feedIdentity(of: fallback))
        }
        if own.contains(wanted) { return wanted }
        if ((try? NamedFeeds.imported()) ?? []).contains(where: { BackgroundPlayer.feedIdentity(of: $0.location) == wanted }) { return wanted }
        return backgroundPlayersFeed(environment) == wanted ? wanted : nil
    }

    /// The running background player's feed; nil when none runs (nothing is
    /// started to find out) or it does not answer within a second.
    private static func backgroundPlayersFeed(_ environment: [String: String]) -> String? {
        let paths = ControlPaths(runtimeDirectory: GlobalOptions.runtimeDirectory(option: nil) { environment[$0] })
        guard let client = try? ControlClient.connect(paths) else { return nil }
        client.setReplyTimeout(seconds: 1)
        return try? client.call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self).feed
    }
}
