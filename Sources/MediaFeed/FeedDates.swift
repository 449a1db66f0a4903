import Foundation

/// The dates feeds write: RFC 822 (RSS `pubDate`, "Tue, 10 Jun 2003 04:00:00
/// GMT"), RFC 3339 (Atom, JSON Feed). Parsed by hand: a formatter per call
/// was the cost of a 5,000-episode feed. Nil for anything else.
public enum FeedDates {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Any date a feed writes in any of its date elements: RFC 822, else ISO 8601.
    static func parse(_ text: String) -> Date? {
        rfc822(text) ?? rfc3339(text)
    }

    /// "Tue, 10 Jun 2003 04:00:00 GMT", "10 Jun 2003 04:00 +0200", "EST" and the like.
    static func rfc822(_ text: String) -> Date? {
        // Words as byte ranges (no String per word: a feed has thousands of dates).
        let bytes = Array(text.utf8)
        var words: [ArraySlice<UInt8>] = []
        var start: Int?
        for index in 0...bytes.count {
            let separator = index == bytes.count || [0x20, 0x2C, 0x09, 0x0A, 0x0D].contains(bytes[index])
            if separator {
                if let first = start { words.append(bytes[first..<index]) }
                start = nil
            } else if start == nil {
                start = index
            }
        }
        func number(_ word: ArraySlice<UInt8>) -> Int? {
            guard !word.isEmpty, word.count <= 6 else { return nil }
            var value = 0
            for byte in word {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        if let first = words.first, number(first) == nil { words.removeFirst() }  // the weekday
        guard words.count >= 4, let day = number(words[0]), (1...31).contains(day), words[1].count >= 3,
              let month = months.firstIndex(of: String(decoding: words[1].prefix(3), as: UTF8.self).lowercased()),
              var year = number(words[2]) else { return nil }
        if year < 100 { year += year < 50 ? 2000 : 1900 }
        let time = words[3].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map(number)
        guard (2...3).contains(time.count), time.allSatisfy({ $0 != nil }) else { return nil }
        let (hour, minute, second) = (time[0]!, time[1]!, time.count == 3 ? time[2]! : 0)
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var offset = 0
        if words.count >= 5 {
            let zone = words[4]
            if let sign = zone.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), zone.count == 5, let value = number(zone.dropFirst()) {
                offset = (value / 100 * 3600 + value % 100 * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            } else {
                let zones = ["est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7]
                offset = (zones[String(decoding: zone, as: UTF8.self).lowercased()] ?? 0) * 3600
            }
        }
        return date(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: Double(second), offset: offset)
    }

    /// "2003-12-13T18:30:02Z", "2003-12-13T18:30:02.25+01:00".
    static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.trimmedOfWhitespace.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), var second = number(17..<19).map(Double.init),
              (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        var index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            let start = index
            index += 1
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            second += Double(String(decoding: bytes[start..<index], as: UTF8.self)) ?? 0
        }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"): break
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6) else { return nil }
                offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            default: return nil
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
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let clock = "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
        return "\(year)-\(two(month))-\(two(day))T\(clock)Z"
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
