import Foundation
import MediaFeed
import MediaModel

/// One line of a playback script (`mediaplay script`).
public enum ScriptStep: Sendable, Equatable {
    /// What `wait-until` waits for: a state, or the file in the cache.
    public enum Goal: Sendable, Equatable, CustomStringConvertible {
        case state(ItemState)
        case cached

        public var description: String {
            switch self {
            case let .state(state): return state.rawValue
            case .cached: return "cached"
            }
        }
    }

    /// A control, in the one vocabulary (`toggle 3`, `volume 60`, `seek +5`,
    /// `seek 3 12`, `repeat all`).
    case command(PlayerCommand)
    case wait(seconds: Double)
    case waitUntil(goal: Goal, item: ItemSelector, timeout: Double)
    case expectState(item: ItemSelector, state: ItemState)
    case expectPosition(item: ItemSelector, seconds: Double, tolerance: Double)
    case expectVolume(Int)
    case expectSpeed(Double)
    /// `expect item N`: N is the current item.
    case expectItem(ItemSelector)
    /// `expect subtitle "text"` (`\n` between lines), `expect subtitle none`:
    /// the subtitle showing on the current item now.
    case expectSubtitle(String?)
    case status
}

/// A parsed script: steps with their line numbers.
public struct Script: Sendable {
    public struct Line: Sendable {
        public let number: Int
        public let text: String
        public let step: ScriptStep
    }

    public let lines: [Line]

    /// A mistake in a script, with its line.
    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    static let waitGoals: [String: ScriptStep.Goal] = [
        "playing": .state(.playing), "paused": .state(.paused), "stopped": .state(.stopped), "ended": .state(.ended), "cached": .cached,
    ]

    public init(_ text: String) throws(ParseError) {
        var lines: [Line] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = raw.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            lines.append(Line(number: index + 1, text: text, step: try Self.parse(text, line: index + 1)))
        }
        self.lines = lines
    }

    /// A week: longer than any script means, short enough for every clock.
    static let longestDuration: Double = 7 * 24 * 3600

    private static func parse(_ text: String, line: Int) throws(ParseError) -> ScriptStep {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        func fail(_ message: String) -> ParseError { ParseError(line: line, message: message) }
        func seconds(_ word: String) throws(ParseError) -> Double {
            var number = word
            var scale = 1.0
            if number.hasSuffix("ms") {
                number.removeLast(2)
                scale = 0.001
            } else if number.hasSuffix("s") {
                number.removeLast()
            }
            // Seconds, M:SS or H:MM:SS, as every command reads a time.
            guard let value = PlayerCommand.seconds(number) else { throw fail("\"\(word)\" is not a duration (like 1.5s, 500ms or 1:30)") }
            // Bounded so that any later conversion to milliseconds fits an Int.
            guard value * scale <= Self.longestDuration else { throw fail("\"\(word)\" is too long (at most \(Int(Self.longestDuration))s)") }
            return value * scale
        }
        func speed(_ word: String) throws(ParseError) -> Double {
            guard let value = Double(word), AudioSettings.speeds.contains(value) else { throw fail("speed takes 0.25 to 4, not \"\(word)\"") }
            return value
        }
        switch (words.first ?? "", words.count) {
        case ("seek", 3) where (try? seconds(words[2])) != nil:
            // The item, then the time, as every command line has it; here the
            // time may also be a duration ("12s", "500ms").
            return .command(.seek(.to(try seconds(words[2])), ItemSelector(words[1])))
        case let (name, _) where PlayerCommand.names.contains(name) || name == "previous":
            do {
                return .command(try PlayerCommand(parsing: text))
            } catch {
                throw fail(error.message)
            }
        case ("wait", 2):
            return .wait(seconds: try seconds(words[1]))
        case ("wait-until", 3), ("wait-until", 4):
            guard let goal = waitGoals[words[1]] else { throw fail("wait-until takes playing, paused, stopped, ended or cached, not \"\(words[1])\"") }
            return .waitUntil(goal: goal, item: ItemSelector(words[2]), timeout: words.count == 4 ? try seconds(words[3]) : 10)
        case ("expect", 4) where words[1] == "state":
            guard let state = ItemState(rawValue: words[3]) else {
                throw fail("unknown state \"\(words[3])\" (\(ItemState.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return .expectState(item: ItemSelector(words[2]), state: state)
        case ("expect", _) where words.count >= 4 && words[1] == "position":
            // expect position N 1.5 ±0.05 (also +-0.05, or "± 0.05"); tolerance 0.05 by default.
            let rest = words[4...].joined()
            var tolerance = 0.05
            if !rest.isEmpty {
                let trimmed = rest.replacingOccurrences(of: "±", with: "").replacingOccurrences(of: "+/-", with: "").replacingOccurrences(of: "+-", with: "")
                tolerance = try seconds(trimmed)
            }
            return .expectPosition(item: ItemSelector(words[2]), seconds: try seconds(words[3]), tolerance: tolerance)
        case ("expect", 3) where words[1] == "volume":
            guard let level = Int(words[2]), AudioSettings.range.contains(level) else { throw fail("expect volume takes 0 to 150, not \"\(words[2])\"") }
            return .expectVolume(level)
        case ("expect", 3) where words[1] == "speed":
            return .expectSpeed(try speed(words[2]))
        case ("expect", _) where words.count >= 3 && words[1] == "subtitle":
            var rest = text.drop { $0.isWhitespace }.dropFirst("expect".count).drop { $0.isWhitespace }.dropFirst("subtitle".count)
                .trimmingCharacters(in: .whitespaces)
            if rest == "none" { return .expectSubtitle(nil) }
            guard rest.count >= 2, rest.hasPrefix("\""), rest.hasSuffix("\"") else { throw fail("expect subtitle takes \"text\" in quotes (\\n between lines) or none") }
            rest = String(rest.dropFirst().dropLast())
            return .expectSubtitle(rest.replacingOccurrences(of: "\\n", with: "\n"))
        case ("expect", 3) where words[1] == "item":
            return .expectItem(ItemSelector(words[2]))
        case ("status", 1):
            return .status
        default:
            throw fail("cannot read \"\(text)\": expected a command (\(PlayerCommand.names.joined(separator: ", "))), wait 1.5s, wait-until STATE N [TIMEOUT], seek N SECONDS, expect state N STATE, expect position N SECONDS ±TOL, expect volume N, expect speed X, expect item N, expect subtitle \"TEXT\"|none, status or # comment")
        }
    }
}

