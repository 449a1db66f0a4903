import ArgumentParser
import Foundation
import MediaCacheCommands
import MediaConfig
import MediaFeed
import MediaListing
import MediaModel
import MediaplayCommandLine
import MediaState
import MediaTerminal

/// `mediaplay feeds`: the feeds named in config.toml's [feeds], with their
/// item and new-item counts; `feeds import FILE.opml` adds a podcast
/// client's subscriptions there.
struct FeedsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feeds",
        abstract: "List the named feeds, or import subscriptions from OPML.",
        discussion: """
            Name feeds in config.toml (docs/CONFIG.md), then pass the name to \
            --feed:
              [feeds]
              news = "https://example.org/podcast.rss"
              music = "~/Music"

            Examples:
              mediaplay feeds
              mediaplay feeds import subscriptions.opml
              mediaplay list --feed news
            """,
        subcommands: [List.self, Import.self],
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
                let feeds = LoadedConfig.current.feeds
                guard !feeds.isEmpty else {
                    if !json {
                        print("No named feeds yet: add them to \(Config.path(ProcessInfo.processInfo.environment)) under [feeds], or import a podcast client's subscriptions with 'mediaplay feeds import FILE.opml'.")
                    }
                    return
                }
                let state = try? StateStore(path: BackgroundPlayer.stateDirectory(global) + "/positions.sqlite")
                let played = state?.playedURLs() ?? []
                var rows: [Row] = []
                for (name, location) in feeds.sorted(by: { $0.key < $1.key }) {
                    var options = global
                    options.feed = location
                    var row = Row(name: name, location: location)
                    do throws(CLIError) {
                        let loaded = try FeedLoading.load(options, announce: false)
                        let fresh = state?.newItems(in: loaded.identity, ids: loaded.feed.items.map(\.id)) ?? []
                        row.title = loaded.feed.title
                        row.items = loaded.feed.items.count
                        row.new = loaded.feed.items.filter { fresh.contains($0.id) && !played.contains($0.source?.description ?? "") }.count
                    } catch {
                        row.error = error.message
                    }
                    rows.append(row)
                }
                if json {
                    for row in rows { print(ModelJSON.text(row)) }
                    return
                }
                var table = Table(columns: [.init("NAME"), .init("TITLE", minimumWidth: 10, shrinkWeight: 2), .init("ITEMS", alignRight: true), .init("NEW", alignRight: true), .init("FEED", minimumWidth: 10, shrinkWeight: 1)])
                for row in rows {
                    table.append([
                        Table.Cell(row.name), Table.Cell(row.error.map { "✗ " + $0 } ?? row.title ?? ""),
                        Table.Cell(row.items.map(String.init) ?? ""), Table.Cell(row.new.map { $0 == 0 ? "" : String($0) } ?? ""), Table.Cell(row.location),
                    ])
                }
                let terminal = TerminalInfo.detect(fd: STDOUT_FILENO, environment: ProcessInfo.processInfo.environment)
                for line in table.render(maximumWidth: terminal.width, colors: terminal.colors) { print(line) }
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add the subscriptions of an OPML file (every podcast client exports one) to config.toml's [feeds].")

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
                let environment = ProcessInfo.processInfo.environment
                let configPath = Config.path(environment)
                let existing = FileManager.default.contents(atPath: configPath).map { String(decoding: $0, as: UTF8.self) } ?? ""
                let current = LoadedConfig.current.feeds
                var names = Set(current.keys)
                let known = Set(current.values)
                var added: [(name: String, url: String)] = []
                for subscription in subscriptions where !known.contains(subscription.url) && !added.contains(where: { $0.url == subscription.url }) {
                    let name = FeedNames.unique(FeedNames.name(for: subscription.title), taken: &names)
                    added.append((name, subscription.url))
                }
                guard !added.isEmpty else {
                    print(subscriptions.isEmpty ? "\(file) lists no feeds." : "Every feed of \(file) is named already.")
                    return
                }
                let lines = added.map { "\($0.name) = \(FeedNames.tomlString($0.url))" }
                let text = FeedNames.inserting(lines, into: existing)
                // Nothing is written that does not read back.
                do {
                    _ = try Config.parse(text, path: configPath)
                } catch {
                    throw CLIError("the feeds of \(file) would not make a valid config.toml (\(error)); nothing was changed", exitCode: .dataError)
                }
                try FeedNames.write(text, to: configPath)
                print("Added \(added.count) feed\(added.count == 1 ? "" : "s") to \(configPath): \(added.map(\.name).joined(separator: ", "))")
                let skipped = subscriptions.count - added.count
                if skipped > 0 { print("\(skipped) already named (or listed twice).") }
            }
        }
    }
}

/// Names for imported feeds, and config.toml's text with them added.
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

    static func unique(_ name: String, taken: inout Set<String>) -> String {
        var candidate = name
        var number = 2
        while taken.contains(candidate) {
            candidate = "\(name)-\(number)"
            number += 1
        }
        taken.insert(candidate)
        return candidate
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

    /// The lines under the file's [feeds] table, or a new one at its end.
    static func inserting(_ lines: [String], into text: String) -> String {
        var fileLines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let header = fileLines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "[feeds]" }) {
            fileLines.insert(contentsOf: lines, at: header + 1)
            return fileLines.joined(separator: "\n")
        }
        var result = text
        if !result.isEmpty, !result.hasSuffix("\n") { result += "\n" }
        if !result.isEmpty { result += "\n" }
        return result + "[feeds]\n" + lines.joined(separator: "\n") + "\n"
    }

    /// Written aside, then renamed over: the old file stays whole until then.
    static func write(_ text: String, to path: String) throws(CLIError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let temporary = folder + "/.config.toml.\(getpid())"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw CLIError("cannot write \(path): \(reason)", exitCode: .ioError)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)", exitCode: .ioError)
        }
    }
}
