import Foundation
import MediaFeed

/// One line of a playback script (`mediaplay script`).
public enum ScriptStep: Sendable, Equatable {
    case toggle(item: String)
    case wait(seconds: Double)
    case waitUntil(state: String, item: String, timeout: Double)
    case seek(item: String, seconds: Double)
    case expectState(item: String, state: String)
    case expectPosition(item: String, seconds: Double, tolerance: Double)
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

    static let waitStates: Set<String> = ["playing", "paused", "ended", "cached"]
    static let states: Set<String> = Set(ItemState.allCases.map(\.rawValue))

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
            guard let value = Double(number), value >= 0, value.isFinite else { throw fail("\"\(word)\" is not a duration (like 1.5s or 500ms)") }
            // Bounded so that any later conversion to milliseconds fits an Int.
            guard value * scale <= Self.longestDuration else { throw fail("\"\(word)\" is too long (at most \(Int(Self.longestDuration))s)") }
            return value * scale
        }
        switch (words.first ?? "", words.count) {
        case ("toggle", 2):
            return .toggle(item: words[1])
        case ("wait", 2):
            return .wait(seconds: try seconds(words[1]))
        case ("wait-until", 3), ("wait-until", 4):
            guard waitStates.contains(words[1]) else { throw fail("wait-until takes playing, paused, ended or cached, not \"\(words[1])\"") }
            return .waitUntil(state: words[1], item: words[2], timeout: words.count == 4 ? try seconds(words[3]) : 10)
        case ("seek", 3):
            return .seek(item: words[1], seconds: try seconds(words[2]))
        case ("expect", 4) where words[1] == "state":
            guard states.contains(words[3]) else { throw fail("unknown state \"\(words[3])\" (idle, downloading, playing, paused, ended, failed)") }
            return .expectState(item: words[2], state: words[3])
        case ("expect", _) where words.count >= 4 && words[1] == "position":
            // expect position N 1.5 ±0.05 (also +-0.05, or "± 0.05"); tolerance 0.05 by default.
            let rest = words[4...].joined()
            var tolerance = 0.05
            if !rest.isEmpty {
                let trimmed = rest.replacingOccurrences(of: "±", with: "").replacingOccurrences(of: "+/-", with: "").replacingOccurrences(of: "+-", with: "")
                tolerance = try seconds(trimmed)
            }
            return .expectPosition(item: words[2], seconds: try seconds(words[3]), tolerance: tolerance)
        case ("status", 1):
            return .status
        default:
            throw fail("cannot read \"\(text)\": expected toggle N, wait 1.5s, wait-until STATE N [TIMEOUT], seek N SECONDS, expect state N STATE, expect position N SECONDS ±TOL, status or # comment")
        }
    }
}

