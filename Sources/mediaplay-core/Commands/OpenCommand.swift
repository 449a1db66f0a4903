import ArgumentParser
import Foundation
import MediaFeed
import MediaplayCommandLine

/// `mediaplay open URI...`: what the desktop hands over (the desktop entry
/// runs `mediaplay open %U`; `xdg-open mediaplay://item/ID` comes here), as
/// the command line it stands for, run in this process.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a mediaplay:// link, a file or a URL (what the desktop entry runs).",
        discussion: """
            mediaplay://item/ID plays that item in the background player, as \
            'mediaplay toggle ID' does; ?feed=PATH|URL|NAME names its feed. Media \
            files, folders, playlists and media URLs play here, as 'mediaplay play' \
            does; a podcast or another feed opens in browse (listed when not on a \
            terminal), as --feed does.

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
            let arguments = try Self.commandLine(for: uris, onTerminal: isatty(STDOUT_FILENO) == 1)
            var command = try Mediaplay.parseAsRoot(arguments)
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        }
    }

    /// The command line `uris` stand for.
    static func commandLine(for uris: [String], onTerminal: Bool) throws(CLIError) -> [String] {
        guard let first = uris.first else { throw CLIError("nothing to open (give a mediaplay:// link, a file or a URL)", exitCode: .usage) }
        if FeedDecoder.schemeOf(first) == "mediaplay" {
            guard uris.count == 1 else { throw CLIError("open takes one mediaplay:// link at a time", exitCode: .usage) }
            return try itemLink(first)
        }
        let targets = try uris.map { uri throws(CLIError) in try target(uri) }
        // A feed (not a playlist or a folder, which play in turn) is browsed.
        if targets.count == 1, isFeed(targets[0]) {
            return [onTerminal ? "browse" : "list", "--feed", targets[0]]
        }
        return ["play"] + targets
    }

    /// `mediaplay://item/ID[?feed=F]` → `toggle ID [--feed F]`.
    private static func itemLink(_ link: String) throws(CLIError) -> [String] {
        guard let parts = URLComponents(string: link), parts.host == "item" else {
            throw CLIError("cannot open \"\(link)\": mediaplay links are mediaplay://item/ID (with ?feed=PATH|URL|NAME)", exitCode: .usage)
        }
        let id = String(parts.path.drop { $0 == "/" })
        guard !id.isEmpty, !id.contains("/") else {
            throw CLIError("cannot open \"\(link)\": no item id after mediaplay://item/", exitCode: .usage)
        }
        // Never read as an option, whatever the link says.
        guard !id.hasPrefix("-") else { throw CLIError("cannot open \"\(link)\": an item id does not start with -", exitCode: .usage) }
        let feed = parts.queryItems?.first { $0.name == "feed" }?.value
        return ["toggle", id] + (feed.map { ["--feed", $0] } ?? [])
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
