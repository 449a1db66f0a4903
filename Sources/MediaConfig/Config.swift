import Foundation
import MediaModel
import TOMLKit

/// `$XDG_CONFIG_HOME/mediaplay/config.toml`: the user's defaults and keys
/// (docs/CONFIG.md). Read whole or not at all: a file with a mistake is one
/// line, `config.toml:LINE:COL: reason`, and nothing starts with half of it.
/// Precedence, highest first: a command-line option, the environment, this
/// file, the built-in default.
public struct Config: Sendable, Equatable {
    /// Where a setting came from (`mediaplay config` says it).
    public enum Source: String, Sendable, Codable {
        case builtIn = "default"
        case file = "config.toml"
    }

    /// `[playback]`: defaults for what users set often.
    public var volume: Int?
    public var speed: Double?
    public var mute: Bool?
    public var autoplay: Bool?
    public var `repeat`: PlaylistMode.Repeat?
    public var shuffle: Bool?
    /// `auto`, `window`, `terminal` or `none`.
    public var videoOutput: String?
    /// `kitty`, `sixel` or `blocks`.
    public var images: String?
    /// `resume` (an item starts where it was left) or `beginning`.
    public var start: String?
    /// Loudness normalisation: the mode, which ReplayGain tag, its preamp
    /// and clipping prevention, the target of measured files, whether
    /// files are measured in the background, and the user's audio filters.
    public var loudness: LoudnessMode?
    public var replayGain: ReplayGainMode?
    public var replayGainPreamp: Double?
    public var replayGainClip: Bool?
    public var loudnessTarget: Double?
    public var measureLoudness: Bool?
    /// `af`: a libavfilter chain, as `ffmpeg -af` takes it (checked when
    /// a player is made: a config file has no libavfilter at hand).
    public var audioFilters: String?
    /// Tracks: `sid` and `aid` ("auto", "no", a number), `slang` and
    /// `alang` (languages in order), `sub-delay` (seconds).
    public var subtitleTrack: TrackSettings.Pick?
    public var audioTrack: TrackSettings.Pick?
    public var subtitleLanguages: [String]?
    public var audioLanguages: [String]?
    public var subtitleDelay: Double?
    /// Web pages (`ytdl`, `ytdl-format`, `ytdl-path`): whether a page plays
    /// through yt-dlp, the format it picks, where the program is.
    public var ytdl: Bool?
    public var ytdlFormat: String?
    public var ytdlPath: String?
    /// An adaptive stream's caps (`max-height` in lines, `max-bitrate` in
    /// bits per second, "5M" or a number).
    public var maxHeight: Int?
    public var maxBitrate: Int64?
    /// `[feed] default`: a path or URL (or the name of one of `feeds`).
    public var feed: String?
    /// `[feeds]`: names for feeds (`news = "https://…/rss"`), for `--feed NAME`.
    public var feeds: [String: String] = [:]
    /// `[feeds.NAME]` tables' logins (a media server's user and password),
    /// by the feed's location.
    public var feedLogins: [String: ServerLogin] = [:]
    /// `[cache] folder`, and `max-size`, the largest file a download keeps.
    public var cacheFolder: String?
    public var maxSize: String?
    /// `[network] timeout`: seconds a feed, playlist, chapters file or OPML
    /// may take in all (nil: 30).
    public var networkTimeout: Int?
    public static let networkTimeoutRange = 1...3600
    /// `[mpd]`: the address the background player answers MPD's protocol on
    /// (nil: off), its password (or the command whose output is it), and
    /// how many clients at most.
    public var mpdListen: String?
    public var mpdPassword: String?
    public var mpdPasswordCommand: String?
    public var mpdMaxClients: Int?
    public static let mpdMaxClientsRange = 1...10_000
    /// `[keys]` over the standard keymap; where each binding came from.
    public var keymap: Keymap = .standard
    public var changedKeys: Set<String> = []
    /// The file read (nil: there is none).
    public var path: String?

    public init() {}

    /// The settings a player starts with: those kept from the last run (the
    /// user changed them), else this file's, else the built-in ones.
    public func audioSettings(kept: AudioSettings?) -> AudioSettings {
        kept ?? AudioSettings(volume: volume ?? 100, muted: mute ?? false, speed: speed ?? 1, loudness: loudness ?? .on, replayGain: replayGain ?? .auto)
    }

    /// The tracks a player starts with, by this file (over the built-in choices).
    public var trackSettings: TrackSettings {
        TrackSettings(
            subtitle: subtitleTrack ?? .auto, audio: audioTrack ?? .auto, subtitleLanguages: subtitleLanguages ?? [],
            audioLanguages: audioLanguages ?? [], subtitleDelay: subtitleDelay ?? 0
        )
    }

    /// ReplayGain's preamp and clipping prevention, and the target.
    public var loudnessOptions: LoudnessOptions {
        LoudnessOptions(preamp: replayGainPreamp ?? 0, preventClipping: replayGainClip ?? true, target: loudnessTarget ?? -18)
    }

    public func playlistMode(kept: PlaylistMode?) -> PlaylistMode {
        kept ?? PlaylistMode(autoplay: autoplay ?? true, repeat: self.repeat ?? .off, shuffle: shuffle ?? false)
    }

    /// A feed's name: a word a user types after --feed that cannot be taken
    /// for a path, a URL or an item number.
    public static func isFeedName(_ name: String) -> Bool { FeedName.isValid(name) }

    /// Whether an item starts where it was left (`start = "resume"`, the default).
    public var resumes: Bool { start != "beginning" }

    /// The file's path for this environment.
    public static func path(_ environment: [String: String]) -> String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return base + "/mediaplay/config.toml"
    }

    /// The user's config, or the built-in defaults when there is no file.
    public static func load(_ environment: [String: String]) throws(ConfigError) -> Config {
        let path = path(environment)
        guard FileManager.default.fileExists(atPath: path) else { return Config() }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(path: path, line: 1, column: 1, message: "cannot be read: \(SystemErrorText.kind(of: path) ?? SystemErrorText.describe(error))")
        }
        var config = try parse(text, path: path)
        config.path = path
        return config
    }

    static let sections: [String: [String]] = [
        "playback": [
            "volume", "speed", "mute", "autoplay", "repeat", "shuffle", "video-output", "images", "start",
            "loudness", "replaygain", "replaygain-preamp", "replaygain-clip", "loudness-target", "measure-loudness", "af",
            "sid", "aid", "slang", "alang", "sub-delay", "ytdl", "ytdl-format", "ytdl-path", "max-height", "max-bitrate",
        ],
        "feed": ["default"],
        "cache": ["folder", "max-size"],
        "network": ["timeout"],
        "mpd": ["listen", "password", "password-command", "max-clients"],
        "keys": [],
        "feeds": [],
    ]

    /// Reads a config file's text (`path` names it in errors).
    public static func parse(_ text: String, path: String) throws(ConfigError) -> Config {
        let name = (path as NSString).lastPathComponent
        // Before the library sees it: a NUL would cut its C strings short.
        if let problem = TOMLText.controlCharacterProblem(in: text) {
            throw ConfigError(path: name, line: problem.line, column: problem.column, message: problem.message)
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: name, line: error.source.begin.line, column: error.source.begin.column, message: error.description)
        } catch {
            throw ConfigError(path: name, line: 1, column: 1, message: "\(error)")
        }
        let locate = KeyLocator(text)
        func fail(_ section: String?, _ key: String, _ message: String) -> ConfigError {
            let (line, column) = locate.position(of: key, in: section)
            return ConfigError(path: name, line: line, column: column, message: message)
        }
        var config = Config()
        // By name, not with TOMLKit's iterator: it force-unwraps a lookup
        // of each key it lists, and a key it cannot find again ends the
        // program (the check above leaves none such; this leaves no trap).
        func entries(_ table: TOMLTable, in section: String?) throws(ConfigError) -> [(String, TOMLValueConvertible)] {
            var found: [(String, TOMLValueConvertible)] = []
            for key in table.keys {
                guard let value = table[key] else { throw fail(section, key, "\"\(key)\" cannot be read back (rewrite the line)") }
                found.append((key, value))
            }
            return found
        }
        for (section, value) in try entries(table, in: nil) {
            guard let known = sections[section] else {
                let hint = NearestWord.suggestion(for: section, among: Array(sections.keys)).map { " (did you mean [\($0)]?)" } ?? ""
                throw fail(nil, section, "unknown section [\(section)]\(hint); the sections are [playback], [feed], [feeds], [cache], [network], [mpd] and [keys]")
            }
            guard let sectionTable = value.table else { throw fail(nil, section, "[\(section)] must be a table") }
            for (key, entry) in try entries(sectionTable, in: section) {
                if section == "feeds" {
                    guard Self.isFeedName(key) else {
                        throw fail(section, key, "\"\(key)\" is not a usable feed name (letters, digits, - and _, not only digits)")
                    }
                    if let server = entry.table {
                        let (location, login) = try Self.serverFeed(server, name: key) { message throws(ConfigError) in throw fail(section, key, message) }
                        config.feeds[key] = location
                        config.feedLogins[location] = login
                        continue
                    }
                    guard let location = entry.string, !location.trimmingCharacters(in: .whitespaces).isEmpty else {
                        throw fail(section, key, "a feed's value is its path or URL in quotes, like \"https://example.org/rss\"")
                    }
                    config.feeds[key] = location
                    continue
                }
                if section == "keys" {
                    guard Keymap.isKeyName(key) else {
                        throw fail(section, key, "\"\(key)\" is not a key (a character, ctrl+LETTER, or one of \(Keymap.namedKeys.joined(separator: ", ")))")
                    }
                    guard let line = entry.string else { throw fail(section, key, "a key's value is a command line in quotes, like \"seek +20\", or \"\" to unbind it") }
                    if line.trimmingCharacters(in: .whitespaces).isEmpty {
                        config.keymap.bind(key, to: nil)
                    } else {
                        do {
                            config.keymap.bind(key, to: try PlayerCommand(parsing: line))
                        } catch {
                            throw fail(section, key, "\(key) = \"\(line)\": \(error.message)")
                        }
                    }
                    config.changedKeys.insert(key)
                    continue
                }
                guard known.contains(key) else {
                    let hint = NearestWord.suggestion(for: key, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
                    throw fail(section, key, "unknown key \"\(key)\" in [\(section)]\(hint); it takes \(known.joined(separator: ", "))")
                }
                try config.set(section, key, entry) { message throws(ConfigError) in throw fail(section, key, message) }
            }
        }
        return config
    }

    /// A `[feeds.NAME]` table: a media server's `url`, with `user`, and
    /// `password` or `password-command`.
    private static func serverFeed(_ table: TOMLTable, name: String, _ fail: (String) throws(ConfigError) -> Never) throws(ConfigError) -> (String, ServerLogin) {
        let keys = ["url", "user", "password", "password-command"]
        var values: [String: String] = [:]
        for key in table.keys {
            guard keys.contains(key) else { try fail("unknown key \"\(key)\" in [feeds.\(name)]; it takes \(keys.joined(separator: ", "))") }
            guard let text = table[key]?.string else { try fail("[feeds.\(name)] \(key) takes a string in quotes") }
            values[key] = text
        }
        guard let url = values["url"], !url.trimmingCharacters(in: .whitespaces).isEmpty else {
            try fail("[feeds.\(name)] needs url, like url = \"subsonic+https://music.example.org\"")
        }
        if values["password"] != nil, values["password-command"] != nil {
            try fail("[feeds.\(name)] takes password or password-command, not both")
        }
        return (url, ServerLogin(user: values["user"], password: values["password"], passwordCommand: values["password-command"]))
    }

    private mutating func set(_ section: String, _ key: String, _ entry: TOMLValueConvertible, _ fail: (String) throws(ConfigError) -> Never) throws(ConfigError) {
        func string(_ allowed: [String]? = nil) throws(ConfigError) -> String {
            guard let text = entry.string else { try fail("\(key) takes a string in quotes") }
            if let allowed, !allowed.contains(text) { try fail("\(key) takes \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")), not \"\(text)\"") }
            return text
        }
        func bool() throws(ConfigError) -> Bool {
            guard let value = entry.bool else { try fail("\(key) takes true or false") }
            return value
        }
        switch (section, key) {
        case ("playback", "volume"):
            guard let value = entry.int, AudioSettings.range.contains(value) else { try fail("volume takes a whole number from 0 to 150") }
            volume = value
        case ("playback", "speed"):
            guard let value = entry.double ?? entry.int.map(Double.init), AudioSettings.speeds.contains(value) else { try fail("speed takes a number from 0.25 to 4") }
            speed = value
        case ("playback", "mute"): mute = try bool()
        case ("playback", "autoplay"): autoplay = try bool()
        case ("playback", "shuffle"): shuffle = try bool()
        case ("playback", "repeat"): self.repeat = PlaylistMode.Repeat(rawValue: try string(PlaylistMode.Repeat.allCases.map(\.rawValue)))
        case ("playback", "video-output"): videoOutput = try string(["auto", "window", "terminal", "none"])
        case ("playback", "images"): images = try string(["kitty", "sixel", "blocks"])
        case ("playback", "start"): start = try string(["resume", "beginning"])
        case ("playback", "loudness"): loudness = LoudnessMode(rawValue: try string(LoudnessMode.allCases.map(\.rawValue)))
        case ("playback", "replaygain"): replayGain = ReplayGainMode(rawValue: try string(ReplayGainMode.allCases.map(\.rawValue)))
        case ("playback", "replaygain-preamp"):
            guard let value = entry.double ?? entry.int.map(Double.init), LoudnessOptions.preamps.contains(value) else { try fail("replaygain-preamp takes dB from -15 to 15") }
            replayGainPreamp = value
        case ("playback", "replaygain-clip"): replayGainClip = try bool()
        case ("playback", "loudness-target"):
            guard let value = entry.double ?? entry.int.map(Double.init), LoudnessOptions.targets.contains(value) else { try fail("loudness-target takes LUFS from -70 to 0 (like -18)") }
            loudnessTarget = value
        case ("playback", "measure-loudness"): measureLoudness = try bool()
        case ("playback", "af"):
            let chain = try string()
            if chain.trimmingCharacters(in: .whitespaces).isEmpty { try fail("af takes a filter chain, like \"equalizer=f=1000:t=q:w=1:g=-6\"") }
            audioFilters = chain
        case ("playback", "sid"), ("playback", "aid"):
            let text = entry.string ?? entry.int.map(String.init) ?? ""
            guard let pick = TrackSettings.Pick(text), key == "sid" || pick != .off else {
                try fail(key == "sid" ? "sid takes \"auto\", \"no\" or a track's number" : "aid takes \"auto\" or a track's number")
            }
            if key == "sid" { subtitleTrack = pick } else { audioTrack = pick }
        case ("playback", "slang"), ("playback", "alang"):
            let languages = TrackSettings.languages(try string())
            guard !languages.isEmpty else { try fail("\(key) takes languages in order, like \"en,de\"") }
            if key == "slang" { subtitleLanguages = languages } else { audioLanguages = languages }
        case ("playback", "sub-delay"):
            guard let value = entry.double ?? entry.int.map(Double.init), TrackSettings.delayRange.contains(value) else { try fail("sub-delay takes seconds from -600 to 600") }
            subtitleDelay = value
        case ("playback", "ytdl"): ytdl = try bool()
        case ("playback", "ytdl-format"):
            let format = try string()
            if format.isEmpty || format.hasPrefix("-") || format.count > 500 { try fail("ytdl-format takes a yt-dlp format, like \"bestvideo[height<=720]+bestaudio/best\"") }
            ytdlFormat = format
        case ("playback", "ytdl-path"):
            let path = try string()
            if path.isEmpty { try fail("ytdl-path takes the yt-dlp program's path or name") }
            ytdlPath = (path as NSString).expandingTildeInPath
        case ("playback", "max-height"):
            guard let value = entry.int, (1...100_000).contains(value) else { try fail("max-height takes lines from 1 to 100000, like 720") }
            maxHeight = value
        case ("playback", "max-bitrate"):
            let text = entry.string ?? entry.int.map(String.init) ?? ""
            guard let bits = Self.bitrate(text) else { try fail("max-bitrate takes bits per second, like \"5M\" or 800000") }
            maxBitrate = bits
        case ("feed", "default"): feed = try string()
        case ("network", "timeout"):
            guard let seconds = entry.int, Self.networkTimeoutRange.contains(seconds) else {
                try fail("timeout takes whole seconds from \(Self.networkTimeoutRange.lowerBound) to \(Self.networkTimeoutRange.upperBound)")
            }
            networkTimeout = seconds
        case ("mpd", "listen"): mpdListen = try string()
        case ("mpd", "password"): mpdPassword = try string()
        case ("mpd", "password-command"): mpdPasswordCommand = try string()
        case ("mpd", "max-clients"):
            guard let count = entry.int, Self.mpdMaxClientsRange.contains(count) else { try fail("max-clients takes a whole number from 1 to 10000") }
            mpdMaxClients = count
        case ("cache", "folder"): cacheFolder = try string()
        case ("cache", "max-size"):
            let text = try string()
            guard ByteSize.parse(text) != nil else { try fail("max-size takes a size like \"500M\" or \"4G\", not \"\(text)\"") }
            maxSize = text
        default: try fail("unknown key \"\(key)\"")
        }
    }
}

extension Config {
    /// "5M", "800k" or "800000" as bits per second (1 kbit/s to 10 Gbit/s).
    static func bitrate(_ text: String) -> Int64? {
        var digits = text.trimmingCharacters(in: .whitespaces)
        var factor: Int64 = 1
        switch digits.last.map({ Character($0.lowercased()) }) {
        case "k"?: factor = 1_000
        case "m"?: factor = 1_000_000
        case "g"?: factor = 1_000_000_000
        default: break
        }
        if factor > 1 { digits.removeLast() }
        guard let number = Double(digits), number.isFinite, number > 0 else { return nil }
        let bits = number * Double(factor)
        guard bits >= 1_000, bits <= 1e10 else { return nil }
        return Int64(bits)
    }
}

/// A mistake in the config file: `config.toml:LINE:COL: reason`, exit 78.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(path):\(line):\(column): \(message)" }
}

/// Where a key stands in the text, for an error about its value (the TOML
/// library gives positions of syntax errors only). It reads section headers
/// and `key =` at the start of lines; the values are TOMLKit's.
struct KeyLocator {
    let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    func position(of key: String, in section: String?) -> (line: Int, column: Int) {
        var current: String?
        for (index, raw) in lines.enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            let column = raw.count - line.count + 1
            if line.hasPrefix("[") {
                let name = line.dropFirst().prefix { $0 != "]" }.trimmingCharacters(in: .whitespaces)
                current = name
                if section == nil && name == key { return (index + 1, column) }
                continue
            }
            guard current == section, let section, !section.isEmpty else { continue }
            let name = line.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces)
            if name == key || name == "\"\(key)\"" || name == "'\(key)'" { return (index + 1, column) }
        }
        return (1, 1)
    }
}
