import ArgumentParser
import Foundation
import MediaConfig
import MediaFeed
import MediaFeedLoading
import MediaServers
import MediaListing
import MediaModel
import MediaplayCommandLine
import MediaState
import MediaTerminal
import MediaplayCommon

/// `mediaplay feeds`: the named feeds (config.toml's [feeds], then the
/// imported ones in feeds.toml), with their item and new-item counts;
/// `feeds import FILE.opml` adds a podcast client's subscriptions to feeds.toml.
struct FeedsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feeds",
        abstract: "List the named feeds, add or remove one, import subscriptions from OPML, or find media servers.",
        discussion: """
            Name feeds in config.toml (docs/CONFIG.md), or with 'feeds add', then \
            pass the name to --feed:
              [feeds]
              news = "https://example.org/podcast.rss"
              music = "~/Music"

            Examples:
              mediaplay feeds
              mediaplay feeds add news https://example.org/podcast.rss
              mediaplay feeds remove news
              mediaplay feeds import subscriptions.opml
              mediaplay feeds discover
              mediaplay list --feed news
            """,
        subcommands: [List.self, Add.self, Remove.self, Import.self, Discover.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show each named feed with its number of items and of new items.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print JSON lines, one feed per line.")
        var json = false

        struct Row: Codable {
            var name: String
            var location: String
            var title: String?
            var items: Int?
            var new: Int?
            var error: String?
        }

        func run() throws {
            try runReportingErrors {
                // config.toml's names first; an imported one of the same name is hidden by it.
                let configured = LoadedConfig.current.feeds
                let imported = try NamedFeeds.imported().filter { configured[$0.name] == nil }
                let feeds = configured.sorted(by: { $0.key < $1.key }).map { NamedFeeds.Entry(name: $0.key, location: $0.value) } + imported
                guard !feeds.isEmpty else {
                    if !json {
                        StandardStream.line("No named feeds yet: add them to \(Config.path(CommandContext.current.environment)) under [feeds], or import a podcast client's subscriptions with 'mediaplay feeds import FILE.opml'.")
                    }
                    return
                }
                // The feeds are listed whatever the state says; a state
                // that could not keep what is new fails the command after.
                var unsaved: String?
                let state: StateStore?
                do {
                    state = try StateStore(path: BackgroundPlayer.stateDirectory(global) + "/positions.sqlite")
                } catch {
                    state = nil
                    unsaved = "\(error)"
                }
                let played = state?.playedURLs() ?? []
                var rows: [Row] = []
                for (name, location) in feeds.map({ ($0.name, $0.location) }) {
                    var options = global
                    options.feed = location
                    var row = Row(name: name, location: location)
                    do throws(CLIError) {
                        let loaded = try FeedLoading.load(options, announce: false)
                        var fresh: Set<String> = []
                        do throws(StateStoreError) {
                            fresh = try state?.newItems(in: loaded.identity, ids: loaded.feed.items.map(\.id)) ?? []
                        } catch {
                            unsaved = unsaved ?? error.description
                        }
                        row.title = loaded.feed.title
                        row.items = loaded.feed.items.count
                        row.new = loaded.feed.items.filter { fresh.contains($0.id) && !played.contains($0.source?.description ?? "") }.count
                    } catch {
                        row.error = error.message
                    }
                    rows.append(row)
                }
                if json {
                    for var row in rows {
                        row.location = row.location.redactingUserinfo
                        StandardStream.line(ModelJSON.text(row))
                    }
                } else {
                    var table = Table(columns: [.init("NAME"), .init("TITLE", minimumWidth: 10, shrinkWeight: 2), .init("ITEMS", alignRight: true), .init("NEW", alignRight: true), .init("FEED", minimumWidth: 10, shrinkWeight: 1)])
                    for row in rows {
                        table.append([
                            Table.Cell(row.name), Table.Cell(row.error.map { "✗ " + $0 } ?? row.title ?? ""),
                            Table.Cell(row.items.map(String.init) ?? ""), Table.Cell(row.new.map { $0 == 0 ? "" : String($0) } ?? ""), Table.Cell(row.location.redactingUserinfo),
                        ])
                    }
                    let terminal = TerminalInfo.standardOutput()
                    for line in table.render(maximumWidth: terminal.width, colors: terminal.colors) { StandardStream.line(line) }
                }
                if let unsaved { throw CLIError(unsaved, exitCode: .ioError) }
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name a podcast or feed by its http(s) URL, once it reads.",
            discussion: """
                The feed is read once first: one that cannot be had or read is not \
                saved (exit 69, 66 or 65, as list says it). It is kept in feeds.toml \
                beside config.toml, as 'feeds import' keeps its feeds, under the same \
                rules: http(s) URLs only (name a local feed by hand, in config.toml's \
                [feeds]), a name of letters, digits, - and _, not taken.

                Example:
                  mediaplay feeds add news https://example.org/podcast.rss
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The name to pass to --feed.", valueName: "name"))
        var name: String

        @Argument(help: ArgumentHelp("The feed's http(s) URL.", valueName: "url"))
        var url: String

        func run() throws {
            try runReportingErrors {
                guard Config.isFeedName(name) else {
                    throw CLIError("\"\(name)\" is not a usable feed name (letters, digits, - and _, not only digits)", exitCode: .usage)
                }
                if SubsonicServer.isLocation(url) {
                    throw CLIError("name a Subsonic server in config.toml, with its login: [feeds.\(name)] url, user, and password or password-command (docs/CONFIG.md)", exitCode: .usage)
                }
                if !UPnPServer.isLocation(url), let problem = OPMLReader.problem(with: url) {
                    throw CLIError("\(url.redactingUserinfo): \(problem) (feeds add takes http(s) URLs; name a local feed in config.toml's [feeds])", exitCode: .usage)
                }
                let feedsPath = NamedFeeds.path
                let (before, existing) = try NamedFeeds.read(feedsPath)
                let configured = LoadedConfig.current.feeds
                let named = configured.map { NamedFeeds.Entry(name: $0.key, location: $0.value) } + existing
                if let taken = named.first(where: { $0.name == name }) {
                    if taken.location == url {
                        StandardStream.line("\(name) is named already (\(url.redactingUserinfo)).")
                        return
                    }
                    throw CLIError("the name \(name) is taken (\(taken.location.redactingUserinfo)); choose another, or 'mediaplay feeds remove \(name)' first", exitCode: .usage)
                }
                if let same = named.first(where: { $0.location == url }) {
                    throw CLIError("\(url.redactingUserinfo) is named already: \(same.name)", exitCode: .usage)
                }
                // Read once before it is saved: a feed that cannot be had is not kept.
                var options = global
                options.feed = url
                let loaded = try FeedLoading.load(options, refresh: true)
                let text = FeedNames.appending([NamedFeeds.Entry(name: name, location: url)], to: String(decoding: before, as: UTF8.self))
                do throws(TOMLText.Problem) {
                    _ = try NamedFeeds.entries(Array(text.utf8))
                } catch {
                    throw CLIError("\(url.redactingUserinfo) would not make a valid feeds.toml (line \(error.line): \(error.message)); nothing was changed", exitCode: .dataError)
                }
                try FeedNames.write(text, to: feedsPath)
                let count = loaded.feed.items.count
                StandardStream.line(DisplayWidth.escaped("Added \(name): \"\(DisplayWidth.singleLine(loaded.feed.title))\", \(count) item\(count == 1 ? "" : "s") (mediaplay list --feed \(name))"))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a feed's name (one added or imported; config.toml's are edited there).",
            discussion: """
                Only the name goes: what was downloaded stays in the cache ('mediaplay \
                cache' looks after it), and played marks stay with their media.

                Example:
                  mediaplay feeds remove news
                """
        )

        @Argument(help: ArgumentHelp("The feed's name.", valueName: "name"))
        var name: String

        func run() throws {
            try runReportingErrors {
                let feedsPath = NamedFeeds.path
                let before = try NamedFeeds.contents(feedsPath) ?? []
                let text = String(decoding: before, as: UTF8.self)
                var kept: [Substring] = []
                var removed: String?
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let entry: (key: String, value: String)?
                    do throws(TOMLText.Problem) {
                        entry = try TOMLText.assignment(line, number: index + 1)
                    } catch {
                        throw NamedFeeds.fileError(error)
                    }
                    if let entry, entry.key == name {
                        removed = removed ?? entry.value
                    } else {
                        kept.append(line)
                    }
                }
                guard let removed else {
                    if LoadedConfig.current.feeds[name] != nil {
                        throw CLIError("\(name) is named in config.toml's [feeds]: remove its line there (\(Config.path(CommandContext.current.environment)))", exitCode: .usage)
                    }
                    throw CLIError("no feed is named \(name) (see 'mediaplay feeds')", exitCode: .noInput)
                }
                try FeedNames.write(kept.joined(separator: "\n"), to: feedsPath)
                let hidden = LoadedConfig.current.feeds[name].map { " (config.toml still names \(name): \($0.redactingUserinfo))" } ?? ""
                StandardStream.line(DisplayWidth.escaped("Removed \(name) (\(removed.redactingUserinfo))\(hidden)"))
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the http(s) subscriptions of an OPML file (every podcast client exports one) to the named feeds.",
            discussion: "They are kept in feeds.toml beside config.toml, one name = \"URL\" a line; paths and other URLs are skipped, each with the reason."
        )

        @Argument(help: ArgumentHelp("The OPML file.", valueName: "file.opml"))
        var file: String

        func run() throws {
            try runReportingErrors {
                let path = absolutePath(file)
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CLIError("cannot read \(file) (check the path)", exitCode: .noInput)
                }
                let subscriptions: [OPMLReader.Subscription]
                do throws(FeedError) {
                    subscriptions = try OPMLReader.subscriptions(Array(data))
                } catch {
                    throw CLIError("\(file):\(error.position.line):\(error.position.column): \(error.message)", exitCode: .dataError)
                }
                let feedsPath = NamedFeeds.path
                let (before, existing) = try NamedFeeds.read(feedsPath)
                let configured = LoadedConfig.current.feeds
                var names = FeedNames.Taken(Set(configured.keys).union(existing.map(\.name)))
                var known = Set(configured.values).union(existing.map(\.location))
                var added: [NamedFeeds.Entry] = []
                var skipped: [(subscription: OPMLReader.Subscription, reason: String)] = []
                for subscription in subscriptions {
                    if let reason = subscription.problem {
                        skipped.append((subscription, reason))
                    } else if known.insert(subscription.url).inserted {
                        added.append(NamedFeeds.Entry(name: names.unique(FeedNames.name(for: subscription.title)), location: subscription.url))
                    }
                }
                for (subscription, reason) in skipped {
                    StandardStream.line(DisplayWidth.escaped("Skipped \"\(subscription.title)\" (\(subscription.url.redactingUserinfo)): \(reason)."))
                }
                guard !added.isEmpty else {
                    StandardStream.line(subscriptions.isEmpty ? "\(file) lists no feeds." : skipped.count == subscriptions.count ? "No http(s) feed in \(file); nothing was added." : "Every feed of \(file) is named already.")
                    return
                }
                let text = FeedNames.appending(added, to: String(decoding: before, as: UTF8.self))
                // Nothing is written that does not read back.
                do throws(TOMLText.Problem) {
                    _ = try NamedFeeds.entries(Array(text.utf8))
                } catch {
                    throw CLIError("the feeds of \(file) would not make a valid feeds.toml (line \(error.line): \(error.message)); nothing was changed", exitCode: .dataError)
                }
                try FeedNames.write(text, to: feedsPath)
                let shown = added.prefix(10).map(\.name).joined(separator: ", ") + (added.count > 10 ? " and \(added.count - 10) more" : "")
                StandardStream.line("Added \(added.count) feed\(added.count == 1 ? "" : "s") to \(feedsPath): \(shown)")
                let twice = subscriptions.count - added.count - skipped.count
                if twice > 0 { StandardStream.line("\(twice) already named (or listed twice).") }
            }
        }
    }

    struct Discover: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the DLNA/UPnP media servers on the local network.",
            discussion: """
                Sends SSDP's M-SEARCH for media servers on every network interface \
                that does multicast and lists those that answer within the timeout: \
                their name and the feed to pass to --feed (or to 'feeds add'). \
                A server counts only if its description is on the address it \
                answered from.

                Examples:
                  mediaplay feeds discover
                  mediaplay feeds discover --json --timeout 5
                  mediaplay feeds add nas "upnp+http://192.168.1.20:8200/rootDesc.xml"
                """
        )

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print JSON lines, one server per line: name, feed, address.")
        var json = false

        @Option(name: .long, help: ArgumentHelp("Seconds to wait for answers (1 to 15).", valueName: "seconds"))
        var timeout: Int = 3

        func run() throws {
            try runReportingErrors {
                guard (1...15).contains(timeout) else { throw CLIError("--timeout takes whole seconds from 1 to 15", exitCode: .usage) }
                let servers = SSDPDiscovery.discover(timeout: Double(timeout))
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    for server in servers {
                        if let data = try? encoder.encode(server) { print(String(decoding: data, as: UTF8.self)) }
                    }
                    return
                }
                if servers.isEmpty {
                    StandardStream.error("mediaplay: no media server answered within \(timeout) s (is one on this network? try --timeout 10)\n")
                    return
                }
                for server in servers {
                    print(DisplayWidth.escaped("\(DisplayWidth.singleLine(server.name))  \(server.feed)"))
                }
            }
        }
    }

}

/// Names for imported feeds, and the feeds file's text with them added.
enum FeedNames {
    /// "The Daily Show!" → "the-daily-show".
    static func name(for title: String) -> String {
        var result = ""
        var dash = false
        for scalar in title.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if dash, !result.isEmpty { result += "-" }
                dash = false
                result.unicodeScalars.append(scalar)
            } else {
                dash = true
            }
            if result.count >= 32 { break }
        }
        return Config.isFeedName(result) ? result : "feed"
    }

    /// The names in use, and per name the number its next copy tries
    /// (100,000 titles that all make "feed" took a scan each).
    struct Taken {
        var names: Set<String>
        var next: [String: Int] = [:]

        init(_ names: Set<String>) { self.names = names }

        /// `name`, else `name-2`, `name-3`, ...: the first not taken.
        mutating func unique(_ name: String) -> String {
            var candidate = name
            var number = next[name] ?? 2
            while names.contains(candidate) {
                candidate = "\(name)-\(number)"
                number += 1
            }
            next[name] = number
            names.insert(candidate)
            return candidate
        }
    }

    /// A TOML basic string.
    static func tomlString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The feeds file's text with `entries` added at its end (a new file
    /// begins with a line saying what it is).
    static func appending(_ entries: [NamedFeeds.Entry], to text: String) -> String {
        var result = text.isEmpty ? "# Feeds imported by 'mediaplay feeds import' (docs/CONFIG.md): one name = \"URL\" a line.\n" : text
        if !result.hasSuffix("\n") { result += "\n" }
        for entry in entries { result += "\(entry.name) = \(tomlString(entry.location))\n" }
        return result
    }

    /// Written aside, then renamed over: the old file stays whole until then.
    /// A read-only file is refused, and the new one gets the old one's mode.
    static func write(_ text: String, to path: String) throws(CLIError) {
        let folder = (path as NSString).deletingLastPathComponent
        var existing = stat()
        let exists = stat(path, &existing) == 0
        if exists, access(path, W_OK) != 0 {
            throw CLIError("cannot save to \(path): it is read-only (check its permissions)", exitCode: .ioError)
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let temporary = folder + "/." + (path as NSString).lastPathComponent + ".\(getpid())"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            if exists { chmod(temporary, existing.st_mode & 0o7777) }
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw CLIError("cannot write \(path): \(reason)", exitCode: .ioError)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot write \(path): \(SystemErrorText.describe(error))", exitCode: .ioError)
        }
    }
}
