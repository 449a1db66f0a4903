import ArgumentParser
import Foundation
import MediaplayCommandLine
import MediaCache
import MediaTerminal

struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Look after the download cache.",
        discussion: """
            The cache lives in --cache-dir (default $XDG_CACHE_HOME/mediaplay). \
            Entries in use by a running download are never removed.

            Examples:
              mediaplay cache list
              mediaplay cache size
              mediaplay cache clear
            """,
        subcommands: [List.self, Size.self, Clear.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the cached entries, most recently used first.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print JSON lines, one entry per line.")
        var json = false

        func run() throws {
            try runReportingErrors {
                let cache = try CacheAccess.open(global)
                let entries = cache.entries()
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    for entry in entries {
                        let line = CacheEntryJSON(entry)
                        if let data = try? encoder.encode(line) { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
                    }
                    return
                }
                if entries.isEmpty {
                    print("The cache in \(cache.directory) is empty.")
                    return
                }
                let terminal = TerminalInfo.detect(fd: STDOUT_FILENO, environment: ProcessInfo.processInfo.environment)
                var table = Table(columns: [.init("STATE"), .init("SIZE", alignRight: true), .init("URL", minimumWidth: 20)])
                for entry in entries {
                    let (state, size) = EntryText.describe(entry.status)
                    table.append([Table.Cell(state), Table.Cell(size), Table.Cell(entry.url)])
                }
                print(table.render(maximumWidth: terminal.width, colors: terminal.colors).joined(separator: "\n"))
            }
        }
    }

    struct Size: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the bytes the cache takes on disk.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print only the number of bytes.")
        var bytes = false

        func run() throws {
            try runReportingErrors {
                let cache = try CacheAccess.open(global)
                let total = cache.totalSize()
                print(bytes ? "\(total)" : "\(formatByteCount(total))  \(cache.directory)")
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every cached and partial download not in use.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try runReportingErrors {
                let cache = try CacheAccess.open(global)
                let result = cache.clear()
                var text = "Removed \(result.removed) entr\(result.removed == 1 ? "y" : "ies"), \(formatByteCount(result.bytes)) freed."
                if result.busy > 0 { text += " \(result.busy) in use by a running download kept." }
                print(text)
            }
        }
    }
}

/// `cache list --json`: one object per line.
struct CacheEntryJSON: Encodable {
    var url: String
    var path: String
    var state: String
    var size: Int64?
    var received: Int64?
    var error: String?
    var contentType: String?
    var lastAccess: Double

    init(_ entry: CacheEntryInfo) {
        url = entry.url
        path = entry.path
        contentType = entry.contentType
        lastAccess = entry.lastAccess.timeIntervalSince1970
        switch entry.status {
        case .notDownloaded: state = "not-downloaded"
        case let .downloading(received, total): state = "downloading"; self.received = received; size = total
        case let .partial(received, total): state = "partial"; self.received = received; size = total
        case let .cached(size): state = "cached"; self.size = size
        case let .failed(reason, received): state = "failed"; error = reason; self.received = received
        }
    }
}

/// Words for an entry's status, shared by `list` and `cache list`.
enum EntryText {
    static func describe(_ status: EntryStatus) -> (state: String, size: String) {
        switch status {
        case .notDownloaded:
            return ("not downloaded", "")
        case let .downloading(received, total):
            return ("downloading" + percent(received, total), formatByteCount(received))
        case let .partial(received, total):
            return ("partial" + percent(received, total), formatByteCount(received))
        case let .cached(size):
            return ("cached", formatByteCount(size))
        case let .failed(reason, _):
            return ("failed: \(reason)", "")
        }
    }

    static func percent(_ received: Int64, _ total: Int64?) -> String {
        guard let total, total > 0 else { return "" }
        return " \(min(100, Int(Double(received) * 100 / Double(total))))%"
    }
}
