import Foundation
import MediaModel

/// Feed names: config.toml's [feeds] (read at the start with the rest of
/// the file), then the feeds `mediaplay feeds import` added, kept in a file
/// of their own, `feeds.toml` beside config.toml, one `name = "URL"` a
/// line. That file is read only when a name is looked up or listed: in
/// config.toml, 100,000 imported names cost every command 1.5 s.
public enum NamedFeeds {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var location: String

        public init(name: String, location: String) {
            self.name = name
            self.location = location
        }
    }

    /// `$XDG_CONFIG_HOME/mediaplay/feeds.toml` (one variable at a time:
    /// this runs before the small client's commands).
    public static var path: String {
        let context = CommandContext.current
        func variable(_ name: String) -> String? { context.variable(name) }
        let home = variable("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let base = variable("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return base + "/mediaplay/feeds.toml"
    }

    /// Whether `word` could be a name (no path, no URL): only then is the
    /// file read.
    static func couldBeName(_ word: String) -> Bool {
        !word.isEmpty && !word.contains("/") && !word.contains(":") && !word.hasPrefix("~") && !word.hasPrefix(".")
    }

    /// The path or URL named `name`, or nil. A broken line of the file
    /// that names it is an error (exit 78), not a miss.
    public static func location(of name: String) throws(CLIError) -> String? {
        if let location = ConfiguredDefaults.values.feeds[name] { return location }
        guard couldBeName(name), let bytes = try contents(path) else { return nil }
        let wanted = Array(name.utf8)
        var found: String?
        do throws(TOMLText.Problem) {
            try eachLine(bytes) { line, number, stop throws(TOMLText.Problem) in
                // Only a line that begins with the name (maybe quoted) is parsed.
                var start = line.startIndex
                while start < line.endIndex, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
                if start < line.endIndex, line[start] == 0x22 || line[start] == 0x27 { start += 1 }
                guard line[start...].starts(with: wanted) else { return }
                if let entry = try TOMLText.assignment(Substring(decoding: line, as: UTF8.self), number: number), entry.key == name {
                    found = entry.value
                    stop = true
                }
            }
        } catch {
            throw fileError(error)
        }
        return found
    }

    /// Every imported entry in file order (the first of a name counts).
    public static func imported() throws(CLIError) -> [Entry] {
        guard let bytes = try contents(path) else { return [] }
        do throws(TOMLText.Problem) {
            return try entries(bytes)
        } catch {
            throw fileError(error)
        }
    }

    /// The entries of a feeds file's bytes; the first problem throws.
    public static func entries(_ bytes: [UInt8]) throws(TOMLText.Problem) -> [Entry] {
        var result: [Entry] = []
        var seen: Set<String> = []
        try eachLine(bytes) { line, number, _ throws(TOMLText.Problem) in
            guard let entry = try TOMLText.assignment(Substring(decoding: line, as: UTF8.self), number: number) else { return }
            guard FeedName.isValid(entry.key) else {
                throw TOMLText.Problem(line: number, column: 1, message: "\"\(entry.key)\" is not a usable feed name (letters, digits, - and _, not only digits)")
            }
            if seen.insert(entry.key).inserted { result.append(Entry(name: entry.key, location: entry.value)) }
        }
        return result
    }

    /// Every name, config.toml's first (for "did you mean" and listings).
    public static func names() -> [String] {
        let configured = ConfiguredDefaults.values.feeds.keys.sorted()
        let taken = Set(configured)
        return configured + ((try? imported()) ?? []).map(\.name).filter { !taken.contains($0) }
    }

    public static func fileError(_ problem: TOMLText.Problem) -> CLIError {
        CLIError("feeds.toml:\(problem.line):\(problem.column): \(problem.message) (fix it, or move it aside; see docs/CONFIG.md)", exitCode: .config)
    }

    /// The file as it is now (its bytes, to write it back) and its entries,
    /// for a command that adds to it; a mistake in it is one line.
    public static func read(_ path: String) throws(CLIError) -> (bytes: [UInt8], entries: [Entry]) {
        let bytes = try contents(path) ?? []
        do throws(TOMLText.Problem) {
            return (bytes, try entries(bytes))
        } catch {
            throw fileError(error)
        }
    }

    /// The file's bytes; nil when there is none.
    public static func contents(_ path: String) throws(CLIError) -> [UInt8]? {
        guard access(path, F_OK) == 0 else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("cannot read \(path) (check its permissions)", exitCode: .ioError)
        }
        return [UInt8](data)
    }

    /// Each line's bytes (without its line end) and number, until `stop`.
    static func eachLine(_ bytes: [UInt8], _ body: (ArraySlice<UInt8>, Int, inout Bool) throws(TOMLText.Problem) -> Void) throws(TOMLText.Problem) {
        // The line ends by memchr, at C's speed in a debug build too.
        let ends = bytes.withUnsafeBytes { buffer in
            var ends: [Int] = []
            guard let base = buffer.baseAddress else { return ends }
            var offset = 0
            while offset < buffer.count, let found = memchr(base + offset, 0x0A, buffer.count - offset) {
                let end = base.distance(to: UnsafeRawPointer(found))
                ends.append(end)
                offset = end + 1
            }
            return ends
        }
        var start = 0, number = 1, stop = false
        for end in ends + [bytes.count] where !stop {
            // What follows the last line end is a line unless it is empty.
            if end == bytes.count && start == end { break }
            try body(bytes[start..<end], number, &stop)
            start = end + 1
            number += 1
        }
    }
}
