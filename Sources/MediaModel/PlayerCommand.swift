/// Every control of playback, named once. The command line, the keys (the
/// keymap binds a key to a command line), the control socket, scripts and
/// MPRIS all make one of these, and `MediaSession.perform(_:)` carries it
/// out. Its text is what a user types after `mediaplay`: `seek +20`,
/// `volume -2`, `speed *1.1`, `repeat` (that is also its Codable form).
public enum PlayerCommand: Sendable, Equatable {
    /// Plays, pauses or resumes the item; without one, pauses or resumes
    /// the current item (space).
    case toggle(ItemSelector?)
    /// Plays the item (the current one when nil) from where it stands, or
    /// from `from` seconds (`play 3 from 1:30`, `play --start`).
    case play(ItemSelector?, from: Double? = nil)
    /// Pauses what plays.
    case pause
    /// Stops the item (what plays when nil); its position is kept.
    case stop(ItemSelector?)
    /// Moves the item (the current one when nil).
    case seek(Seek, ItemSelector?)
    case volume(Level)
    /// Mutes, unmutes, or (nil) toggles.
    case mute(Bool?)
    case speed(Speed)
    case next
    case previous
    /// Sets the repeat mode, or (nil, `repeat cycle`) cycles off → all → one → off.
    case setRepeat(PlaylistMode.Repeat?)
    /// Turns shuffle on or off, or (nil, `shuffle toggle`) the other way.
    case shuffle(Bool?)
    /// Turns autoplay on or off, or (nil, `autoplay toggle`) the other way.
    case autoplay(Bool?)
    /// Ends the front end that reads it: `play` and a window stop and
    /// close, the background player quits.
    case quit
    /// The sleep timer: after some time played, or at the end of the
    /// current item, the sound fades out and playback pauses (`sleep 30m`,
    /// `sleep end`, `sleep off`; `sleep cycle`: 15, 30, 60 min, off).
    case sleep(SleepTimer?)
    /// To the start of the next, previous or Nth chapter of what plays.
    case chapter(ChapterStep)
    /// Where the gain that evens loudness comes from (`loudness on`,
    /// `loudness tags`); nil (`loudness cycle`) goes on → tags → measured → off.
    case loudness(LoudnessMode?)
    /// Shows, hides or chooses the subtitles of what plays (`subtitle next`,
    /// `subtitle off`, `subtitle 2`; `v` toggles, `j` steps, as in mpv).
    case subtitle(SubtitleStep)
    /// Chooses the audio track of what plays (`audio-track next`, `audio-track 2`; `#`).
    case audioTrack(TrackStep)
    /// Moves subtitles later (+) or earlier (−) by seconds, or to a delay
    /// (`sub-delay +0.1`, `sub-delay 0`; `z` and `Z` by 0.1 s).
    case subtitleDelay(Delay)

    public enum SubtitleStep: Sendable, Equatable, Hashable {
        case next
        /// Shown again (the track chosen before, else the player's choice).
        case on
        case off
        /// Shown or hidden (`v`).
        case toggle
        /// 1-based.
        case number(Int)
    }

    public enum TrackStep: Sendable, Equatable, Hashable {
        case next
        /// 1-based.
        case number(Int)
    }

    public enum Delay: Sendable, Equatable, Hashable {
        case to(Double)
        case by(Double)
    }

    public enum ChapterStep: Sendable, Equatable, Hashable {
        case next, previous
        /// 1-based.
        case number(Int)
    }

    public enum SleepTimer: Sendable, Equatable, Hashable {
        /// After this many seconds of playback.
        case after(Double)
        /// When the current item ends.
        case endOfItem
        case off
    }

    public enum Seek: Sendable, Equatable, Hashable {
        /// To a time, in seconds.
        case to(Double)
        /// By seconds from where the item stands (back when negative).
        case by(Double)
        /// To a share of the item's length, 0–100.
        case percent(Double)
    }

    public enum Level: Sendable, Equatable, Hashable {
        /// To a volume, 0–150.
        case to(Int)
        /// By points, −150 to 150.
        case by(Int)
    }

    public enum Speed: Sendable, Equatable, Hashable {
        /// To a factor, 0.25–4.
        case to(Double)
        /// Times a factor (mpv's `multiply speed`): 1.1 faster, 1/1.1 slower.
        case times(Double)
        /// Back to 1×.
        case reset
    }
}

extension PlayerCommand: CustomStringConvertible {
    /// The command line that reads back as this command.
    public var description: String {
        func item(_ selector: ItemSelector?) -> String { selector.map { " \($0)" } ?? "" }
        func onOff(_ value: Bool?) -> String { value.map { $0 ? " on" : " off" } ?? "" }
        func number(_ value: Double) -> String { value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value) }
        switch self {
        case let .toggle(selector): return "toggle" + item(selector)
        case let .play(selector, start): return "play" + item(selector) + (start.map { " from \(number($0))" } ?? "")
        case .pause: return "pause"
        case let .stop(selector): return "stop" + item(selector)
        case let .seek(.to(seconds), selector): return "seek" + item(selector) + " \(number(seconds))"
        case let .seek(.by(seconds), selector): return "seek" + item(selector) + " \(seconds < 0 ? "-" : "+")\(number(abs(seconds)))"
        case let .seek(.percent(share), selector): return "seek" + item(selector) + " \(number(share))%"
        case let .volume(.to(level)): return "volume \(level)"
        case let .volume(.by(step)): return "volume \(step < 0 ? "-" : "+")\(abs(step))"
        case let .mute(on): return "mute" + onOff(on)
        case let .speed(.to(factor)): return "speed \(number(factor))"
        case let .speed(.times(factor)): return factor < 1 ? "speed /\(number((1 / factor * 1000).rounded() / 1000))" : "speed *\(number(factor))"
        case .speed(.reset): return "speed reset"
        case .next: return "next"
        case .previous: return "prev"
        case let .setRepeat(mode): return "repeat " + (mode?.rawValue ?? "cycle")
        case let .shuffle(on): return "shuffle" + (on == nil ? " toggle" : onOff(on))
        case let .autoplay(on): return "autoplay" + (on == nil ? " toggle" : onOff(on))
        case .chapter(.next): return "chapter next"
        case .chapter(.previous): return "chapter prev"
        case let .chapter(.number(number)): return "chapter \(number)"
        case let .sleep(timer):
            switch timer {
            case let .after(seconds)?: return "sleep \(number(seconds))s"
            case .endOfItem?: return "sleep end"
            case .off?: return "sleep off"
            case nil: return "sleep cycle"
            }
        case let .loudness(mode): return "loudness " + (mode?.rawValue ?? "cycle")
        case .subtitle(.next): return "subtitle next"
        case .subtitle(.on): return "subtitle on"
        case .subtitle(.off): return "subtitle off"
        case .subtitle(.toggle): return "subtitle toggle"
        case let .subtitle(.number(number)): return "subtitle \(number)"
        case .audioTrack(.next): return "audio-track next"
        case let .audioTrack(.number(number)): return "audio-track \(number)"
        case let .subtitleDelay(.to(seconds)): return "sub-delay \(number(seconds))"
        case let .subtitleDelay(.by(seconds)): return "sub-delay \(seconds < 0 ? "-" : "+")\(number(abs(seconds)))"
        case .quit: return "quit"
        }
    }
}

extension PlayerCommand: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try PlayerCommand(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension PlayerCommand {
    /// The command names, as typed.
    public static let names = ["toggle", "play", "pause", "stop", "seek", "volume", "mute", "speed", "next", "prev", "repeat", "shuffle", "autoplay", "sleep", "chapter", "loudness", "subtitle", "audio-track", "sub-delay", "quit"]

    /// Reads a command line as typed after `mediaplay` (a key binding's
    /// value, a script step, a socket's `command`): one line of error, with
    /// the nearest command for a misspelt one.
    public init(parsing text: String) throws(CommandError) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let name = words.first else { throw CommandError(.badRequest, "an empty command (expected one of \(Self.names.joined(separator: ", ")))") }
        let arguments = Array(words.dropFirst())
        func usage(_ form: String) -> CommandError { CommandError(.badRequest, "\(name) takes \(form), not \"\(arguments.joined(separator: " "))\"") }
        func none() throws(CommandError) { if !arguments.isEmpty { throw usage("nothing") } }
        func optionalItem() throws(CommandError) -> ItemSelector? {
            guard arguments.count <= 1 else { throw usage("an item number or id, or nothing") }
            return arguments.first.map(ItemSelector.init)
        }
        func onOff() throws(CommandError) -> Bool? {
            switch arguments {
            case []: return nil
            case ["on"]: return true
            case ["off"]: return false
            default: throw usage("on, off or nothing")
            }
        }
        switch name {
        case "toggle": self = .toggle(try optionalItem())
        case "play":
            // `play [ITEM] [from TIME]`
            let at = arguments.firstIndex(of: "from")
            let items = at.map { Array(arguments[..<$0]) } ?? arguments
            guard items.count <= 1, at.map({ $0 + 2 == arguments.count }) ?? true else { throw usage("an item, then from TIME, or nothing") }
            var start: Double?
            if let at {
                guard let seconds = Self.seconds(arguments[at + 1]) else { throw usage("an item, then from TIME (90, 1:30), or nothing") }
                start = seconds
            }
            self = .play(items.first.map(ItemSelector.init), from: start)
        case "pause": try none(); self = .pause
        case "stop": self = .stop(try optionalItem())
        case "next": try none(); self = .next
        case "prev", "previous": try none(); self = .previous
        case "quit": try none(); self = .quit
        case "mute": self = .mute(try onOff())
        case "shuffle", "autoplay":
            // Without a word the command line only reads the modes: a
            // control says what it does.
            guard arguments.count == 1, ["on", "off", "toggle"].contains(arguments[0]) else { throw usage("on, off or toggle") }
            let on: Bool? = arguments[0] == "toggle" ? nil : arguments[0] == "on"
            self = name == "shuffle" ? .shuffle(on) : .autoplay(on)
        case "repeat":
            guard arguments.count == 1 else { throw usage("off, one, all or cycle") }
            if arguments[0] == "cycle" {
                self = .setRepeat(nil)
            } else {
                guard let mode = PlaylistMode.Repeat(rawValue: arguments[0]) else { throw usage("off, one, all or cycle") }
                self = .setRepeat(mode)
            }
        case "seek":
            // `seek TIME`, or `seek ITEM TIME` (a script's order, one order everywhere).
            guard (1...2).contains(arguments.count), let seek = Self.seek(arguments[arguments.count - 1]) else {
                throw usage("a time (90, 1:30), +N, -N or N%, after an item or alone")
            }
            self = .seek(seek, arguments.count == 2 ? ItemSelector(arguments[0]) : nil)
        case "volume":
            let limit = AudioSettings.range.upperBound
            guard arguments.count == 1, let number = Int(arguments[0]), (-limit...limit).contains(number) else { throw usage("N (0–150), +N or -N") }
            let relative = arguments[0].hasPrefix("+") || arguments[0].hasPrefix("-")
            guard relative || number >= 0 else { throw usage("N (0–150), +N or -N") }
            self = .volume(relative ? .by(number) : .to(number))
        case "speed":
            guard arguments.count == 1, let speed = Self.speed(arguments[0]) else { throw usage("a factor from 0.25 to 4, *F, /F or reset") }
            self = .speed(speed)
        case "chapter":
            guard arguments.count == 1 else { throw usage("next, prev or a chapter's number") }
            switch arguments[0] {
            case "next": self = .chapter(.next)
            case "prev", "previous": self = .chapter(.previous)
            default:
                guard let number = Int(arguments[0]), number >= 1, number <= 10_000 else { throw usage("next, prev or a chapter's number") }
                self = .chapter(.number(number))
            }
        case "loudness":
            guard arguments.count == 1 else { throw usage("on, tags, measured, off or cycle") }
            if arguments[0] == "cycle" {
                self = .loudness(nil)
            } else {
                guard let mode = LoudnessMode(rawValue: arguments[0]) else { throw usage("on, tags, measured, off or cycle") }
                self = .loudness(mode)
            }
        case "subtitle":
            let form = "next, on, off, toggle or a track's number"
            guard arguments.count == 1 else { throw usage(form) }
            switch arguments[0] {
            case "next": self = .subtitle(.next)
            case "on": self = .subtitle(.on)
            case "off", "no": self = .subtitle(.off)
            case "toggle": self = .subtitle(.toggle)
            default:
                guard let number = Int(arguments[0]), (1...999).contains(number) else { throw usage(form) }
                self = .subtitle(.number(number))
            }
        case "audio-track":
            guard arguments.count == 1 else { throw usage("next or a track's number") }
            if arguments[0] == "next" {
                self = .audioTrack(.next)
            } else {
                guard let number = Int(arguments[0]), (1...999).contains(number) else { throw usage("next or a track's number") }
                self = .audioTrack(.number(number))
            }
        case "sub-delay":
            let form = "seconds: +S, -S or S (-600 to 600; 1.5 or 0:01.5)"
            guard arguments.count == 1 else { throw usage(form) }
            let word = arguments[0]
            let relative = word.hasPrefix("+") || word.hasPrefix("-")
            guard let amount = Self.seconds(relative ? String(word.dropFirst()) : word) else { throw usage(form) }
            let value = word.hasPrefix("-") ? -amount : amount
            guard TrackSettings.delayRange.contains(value) else { throw usage(form) }
            self = .subtitleDelay(relative ? .by(value) : .to(value))
        case "sleep":
            guard arguments.count == 1 else { throw usage("a time (30m, 1h, 1h30m, 90s), end, off or cycle") }
            switch arguments[0] {
            case "end": self = .sleep(.endOfItem)
            case "off": self = .sleep(.off)
            case "cycle": self = .sleep(nil)
            default:
                guard let seconds = Self.duration(arguments[0]), seconds > 0 else { throw usage("a time (30m, 1h, 1h30m, 90s), end, off or cycle") }
                self = .sleep(.after(seconds))
            }
        default:
            let hint = NearestWord.suggestion(for: name, among: Self.names).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw CommandError(.unknownCommand, "unknown command \"\(name)\"\(hint); the commands are \(Self.names.joined(separator: ", "))")
        }
    }

    /// "90", "90s", "30m", "1h", "1h30m", "1:30:00" → seconds (a week at
    /// most); nil otherwise.
    public static func duration(_ text: String) -> Double? {
        if let plain = seconds(text) { return plain }
        var total = 0.0
        var digits = ""
        for character in text {
            if character.isASCII && (character.isNumber || character == ".") {
                digits.append(character)
                continue
            }
            let scale: Double
            switch character {
            case "h": scale = 3600
            case "m": scale = 60
            case "s": scale = 1
            default: return nil
            }
            guard let value = Double(digits), value.isFinite else { return nil }
            total += value * scale
            digits = ""
        }
        guard digits.isEmpty, total.isFinite, total <= 7 * 24 * 3600 else { return nil }
        return total
    }

    /// "90", "1:30", "1:02:03" → seconds (a week at most); nil otherwise.
    /// The one reading of a time everywhere: `seek`, `play N from`,
    /// `play --start`, `sleep`, `sub-delay`, scripts and feeds' durations.
    public static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), value.isFinite, value >= 0, index == 0 || value < 60 else { return nil }
            total = total * 60 + value
        }
        return total <= 7 * 24 * 3600 ? total : nil
    }

    private static func seek(_ word: String) -> Seek? {
        if word.hasSuffix("%") {
            guard let share = Double(word.dropLast()), share.isFinite, (0...100).contains(share) else { return nil }
            return .percent(share)
        }
        if let sign = word.first, sign == "+" || sign == "-" {
            guard let amount = seconds(String(word.dropFirst())) else { return nil }
            return .by(sign == "-" ? -amount : amount)
        }
        return seconds(word).map(Seek.to)
    }

    private static func speed(_ word: String) -> Speed? {
        if word == "reset" { return .reset }
        if let operation = word.first, operation == "*" || operation == "/" {
            guard let factor = Double(word.dropFirst()), factor.isFinite, factor >= 0.25, factor <= 4 else { return nil }
            return .times(operation == "*" ? factor : 1 / factor)
        }
        guard let factor = Double(word), AudioSettings.speeds.contains(factor) else { return nil }
        return .to(factor)
    }
}
