import Foundation

/// The dates feeds write: RFC 822 (RSS `pubDate`, "Tue, 10 Jun 2003 04:00:00
/// GMT", with any offset, RFC 822's zone names, a 12-hour clock, month
/// names in the languages feeds use), ISO 8601 (Atom, JSON Feed, Dublin
/// Core, and many a `pubDate`). Parsed by hand: a formatter per call was
/// the cost of a 5,000-episode feed. Nil for anything else.
public enum FeedDates {
    /// Month names by their first letters, lowercased: English, then the
    /// other languages feeds are written in (German, French, Spanish,
    /// Italian, Portuguese, Dutch); longest first where they share a start.
    private static let monthNames: [(prefix: String, month: Int)] = [
        ("juin", 6), ("juil", 7), ("janv", 1), ("févr", 2), ("fevr", 2), ("mars", 3), ("avr", 4), ("août", 8), ("aout", 8), ("déc", 12),
        ("jan", 1), ("feb", 2), ("mar", 3), ("apr", 4), ("may", 5), ("jun", 6), ("jul", 7), ("aug", 8), ("sep", 9), ("oct", 10), ("nov", 11), ("dec", 12),
        ("mär", 3), ("mrz", 3), ("mai", 5), ("okt", 10), ("dez", 12), ("mei", 5), ("mrt", 3),
        ("ene", 1), ("abr", 4), ("ago", 8), ("dic", 12), ("set", 9), ("out", 10),
        ("gen", 1), ("mag", 5), ("giu", 6), ("lug", 7), ("ott", 10), ("fev", 2),
    ]

    /// RFC 822's zones (with its military letters: A is UT−1 … M is UT−12,
    /// N is UT+1 … Y is UT+12, Z is UT) and the others feeds use, in hours.
    private static let zones: [String: Int] = {
        var zones = ["ut": 0, "utc": 0, "gmt": 0, "z": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7,
                     "ast": -4, "adt": -3, "et": -5, "ct": -6, "mt": -7, "pt": -8, "at": -4, "met": 1, "mest": 2, "cet": 1, "cest": 2, "bst": 1, "wet": 0, "west": 1]
        for (offset, letter) in "abcdefghiklm".enumerated() { zones[String(letter)] = -(offset + 1) }
        for (offset, letter) in "nopqrstuvwxy".enumerated() { zones[String(letter)] = offset + 1 }
        return zones
    }()

    /// Any date a feed writes in any of its date elements: RFC 822, else ISO 8601.
    static func parse(_ text: String) -> Date? {
        rfc822(text) ?? rfc3339(text)
    }

    /// The month a word names (its first letters, any case). ASCII words are
    /// compared in place; others ("MÄR", "févr") through a lowercased String.
    private static func month(_ word: UnsafeBufferPointer<UInt8>.SubSequence) -> Int? {
        guard word.allSatisfy({ $0 < 0x80 }) else {
            let name = String(decoding: word, as: UTF8.self).lowercased()
            guard name.count >= 3 else { return nil }
            return monthNames.first { name.hasPrefix($0.prefix) }?.month
        }
        guard word.count >= 3 else { return nil }
        return monthNames.first { entry in
            var matches = entry.prefix.utf8.count <= word.count
            if matches {
                for (offset, letter) in entry.prefix.utf8.enumerated() where word[word.startIndex + offset] | 0x20 != letter {
                    matches = false
                    break
                }
            }
            return matches
        }?.month
    }

    /// "Tue, 10 Jun 2003 04:00:00 GMT", "10 Jun 2003 04:00 +0200", "+02:00",
    /// "EST", "3:59:21 PM", "Di, 14 Mär 2021" and the like.
    static func rfc822(_ text: String) -> Date? {
        // Read in place, word by word: a feed has thousands of dates, and
        // an array per date (and a string per word) was most of their cost.
        var text = text
        return text.withUTF8 { rfc822(bytes: $0) }
    }

    private static func rfc822(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        typealias Word = UnsafeBufferPointer<UInt8>.SubSequence
        var cursor = 0
        func isSeparator(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x2C || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
        func nextWord() -> Word? {
            while cursor < bytes.count, isSeparator(bytes[cursor]) { cursor += 1 }
            guard cursor < bytes.count else { return nil }
            let start = cursor
            while cursor < bytes.count, !isSeparator(bytes[cursor]) { cursor += 1 }
            return bytes[start..<cursor]
        }
        func number(_ word: Word) -> Int? {
            guard !word.isEmpty, word.count <= 6 else { return nil }
            var value = 0
            for byte in word {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        // "10 Jun 2003" or "10. Juni 2003" (a day with a dot), after a weekday in any language.
        func withoutDot(_ word: Word) -> Word {
            if word.last == UInt8(ascii: "."), number(word.dropLast()) != nil { return word.dropLast() }
            return word
        }
        guard var first = nextWord().map(withoutDot) else { return nil }
        if number(first) == nil {
            guard let next = nextWord() else { return nil }
            first = withoutDot(next)
        }
        guard let monthWord = nextWord(), let yearWord = nextWord(), let day = number(first), (1...31).contains(day), let month = month(monthWord),
              var year = number(yearWord) else { return nil }
        if year < 100 { year += year < 50 ? 2000 : 1900 }
        // No time: midnight, UT.
        guard let timeWord = nextWord() else { return date(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, offset: 0) }
        // "04:00" or "04:00:00": two or three numbers between colons.
        var time = (0, 0, 0)
        var parts = 0
        var partStart = timeWord.startIndex
        for index in timeWord.startIndex...timeWord.endIndex where index == timeWord.endIndex || bytes[index] == UInt8(ascii: ":") {
            guard parts < 3, let value = number(bytes[partStart..<index]) else { return nil }
            switch parts {
            case 0: time.0 = value
            case 1: time.1 = value
            default: time.2 = value
            }
            parts += 1
            partStart = index + 1
        }
        guard parts >= 2 else { return nil }
        var (hour, minute, second) = time
        var zoneWord = nextWord()
        // A 12-hour clock: "3:59:21 PM".
        if let word = zoneWord, word.count <= 4 {
            let meridiem = String(decoding: word, as: UTF8.self).lowercased()
            if meridiem == "am" || meridiem == "pm" || meridiem == "a.m." || meridiem == "p.m." {
                guard (1...12).contains(hour) else { return nil }
                hour = hour % 12 + (meridiem.hasPrefix("p") ? 12 : 0)
                zoneWord = nextWord()
            }
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var offset = 0
        if var zone = zoneWord {
            // "GMT+1", "UTC-05:00": the offset after the name.
            let word = zone
            func named(_ name: StaticString) -> Bool {
                zone.count > name.utf8CodeUnitCount && name.withUTF8Buffer { name in
                    name.indices.allSatisfy { zone[zone.startIndex + $0] | 0x20 == name[$0] }
                }
            }
            if named("gmt") || named("utc") {
                zone = zone.dropFirst(3)
            } else if named("ut") {
                zone = zone.dropFirst(2)
            }
            if let sign = zone.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                var digits = 0
                var value = 0
                for byte in zone.dropFirst() where byte != UInt8(ascii: ":") {
                    guard byte >= 0x30, byte <= 0x39, digits < 6 else { return nil }
                    value = value * 10 + Int(byte - 0x30)
                    digits += 1
                }
                let minutes: Int
                switch digits {
                case 1, 2: minutes = value * 60
                case 3, 4: minutes = value / 100 * 60 + value % 100
                default: return nil
                }
                guard minutes <= 18 * 60 else { return nil }
                offset = minutes * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
            } else {
                offset = (zones[String(decoding: word, as: UTF8.self).lowercased()] ?? 0) * 3600
            }
        }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: Double(second), offset: offset)
    }

    /// ISO 8601 as feeds write it: "2003-12-13T18:30:02Z",
    /// "2003-12-13T18:30:02.25+01:00", "2003-12-13 18:30+0100", "2003-12-13".
    static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.trimmedOfWhitespace.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        // A date alone: midnight, UT.
        if bytes.count == 10 { return date(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, offset: 0) }
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
              let hour = number(11..<13), bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        var second = 0.0
        var index = 16
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let whole = number(17..<19), whole <= 60 else { return nil }
            second = Double(whole)
            index = 19
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                let start = index + 1
                index += 1
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
                second += Double("0." + String(decoding: bytes[start..<index], as: UTF8.self)) ?? 0
            }
        }
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                guard index + 1 == bytes.count else { return nil }
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                // "+01:00", "+0100" or "+01".
                let digits = bytes[(index + 1)...].filter { $0 != UInt8(ascii: ":") }
                guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                let value = Int(String(decoding: digits, as: UTF8.self))!
                let minutes = digits.count == 2 ? value * 60 : value / 100 * 60 + value % 100
                offset = minutes * 60 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            default:
                // A zone name after the time ("2003-12-13 18:30:02 GMT").
                let name = String(decoding: bytes[index...], as: UTF8.self).lowercased()
                guard let hours = zones[name] else { return nil }
                offset = hours * 3600
            }
        }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    /// "2003-06-10T04:00:00Z": a date as `list --json` writes it (UTC, whole seconds).
    public static func text(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        // Civil from days (proleptic Gregorian).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // Twenty bytes written in place (a string per field was most of a large list's dates).
        guard (0...9999).contains(year) else {
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))Z"
        }
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int, digits: Int, at start: Int) {
                var rest = value
                for index in stride(from: start + digits - 1, through: start, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, digits: 4, at: 0)
            put(month, digits: 2, at: 5)
            put(day, digits: 2, at: 8)
            put(secondOfDay / 3600, digits: 2, at: 11)
            put(secondOfDay % 3600 / 60, digits: 2, at: 14)
            put(secondOfDay % 60, digits: 2, at: 17)
            (buffer[4], buffer[7], buffer[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
            (buffer[13], buffer[16], buffer[19]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "Z"))
            return 20
        }
    }

    /// Days from the civil calendar (proleptic Gregorian), no Calendar needed.
    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double, offset: Int) -> Date? {
        guard (1...9999).contains(year) else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second
        return Date(timeIntervalSince1970: seconds)
    }
}
