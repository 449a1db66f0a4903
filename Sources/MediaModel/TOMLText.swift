/// TOML text as mediaplay's config files hold it, checked by hand where the
/// TOML library cannot be trusted: it hands keys and strings over as C
/// strings, so a NUL cut them short (and a key cut short was not found
/// again: its table iterator crashed). Keys and values are one line of
/// text: no control character but tab, raw or escaped, and no line break.
public enum TOMLText {
    /// What is wrong, and where (line and column count Unicode scalars from 1).
    public struct Problem: Error, Sendable, Equatable {
        public var line: Int
        public var column: Int
        public var message: String

        public init(line: Int, column: Int, message: String) {
            self.line = line
            self.column = column
            self.message = message
        }
    }

    /// U+0000–U+001F but tab, and U+007F.
    public static func isControl(_ value: UInt32) -> Bool {
        (value < 0x20 && value != 0x09) || value == 0x7F
    }

    /// "U+0000".
    public static func name(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static let inValue = "in a key or value; they take none but tab"
    static let lineBreak = "a line break inside a string; keys and values are one line (a line that ends in \\ goes on in the next)"

    /// The first control character of a TOML document: raw anywhere (tab and
    /// line ends aside), made by an escape (`\u0000`, `\n`) in a basic string
    /// or quoted key, or a line break kept in a multi-line string. Nil when
    /// there is none; the TOML syntax itself is the library's to check.
    public static func controlCharacterProblem(in text: String) -> Problem? {
        let scalars = Array(text.unicodeScalars)
        var index = 0, line = 1, lineStart = 0
        func problem(_ at: Int, _ message: String) -> Problem {
            Problem(line: line, column: at - lineStart + 1, message: message)
        }
        func scalar(_ at: Int) -> UInt32? { at < scalars.count ? scalars[at].value : nil }
        /// The length of a line end at `at` (LF or CR LF), or 0.
        func lineEnd(_ at: Int) -> Int {
            scalar(at) == 0x0A ? 1 : (scalar(at) == 0x0D && scalar(at + 1) == 0x0A ? 2 : 0)
        }
        func newLine(after end: Int) {
            line += 1
            lineStart = end
        }
        func run(of quote: UInt32, at: Int) -> Int {
            var count = 0
            while scalar(at + count) == quote { count += 1 }
            return count
        }

        enum Escape { case character(UInt32, length: Int), lineContinues, unknown }
        func escape(at start: Int) -> Escape {
            guard let letter = scalar(start + 1) else { return .unknown }
            let simple: [UInt32: UInt32] = [0x62: 0x08, 0x74: 0x09, 0x6E: 0x0A, 0x66: 0x0C, 0x72: 0x0D, 0x65: 0x1B, 0x22: 0x22, 0x5C: 0x5C]
            if let made = simple[letter] { return .character(made, length: 2) }
            let digits = letter == 0x75 ? 4 : letter == 0x55 ? 8 : letter == 0x78 ? 2 : 0  // \u, \U, \x
            if digits > 0 {
                var made: UInt32 = 0
                for offset in 0..<digits {
                    guard let digit = scalar(start + 2 + offset).flatMap({ Unicode.Scalar($0) }).flatMap({ Character($0).hexDigitValue }) else { return .unknown }
                    made = made &* 16 &+ UInt32(digit)
                }
                return .character(made, length: 2 + digits)
            }
            if letter == 0x20 || letter == 0x09 || lineEnd(start + 1) > 0 { return .lineContinues }
            return .unknown
        }
        enum Place { case plain, comment, basic, literal, multiLineBasic, multiLineLiteral }
        var place = Place.plain
        while index < scalars.count {
            let value = scalars[index].value
            let end = lineEnd(index)
            if end > 0 {
                switch place {
                case .multiLineBasic, .multiLineLiteral: return problem(index, lineBreak)
                // An unclosed string: the library says so.
                default: place = .plain
                }
                index += end
                newLine(after: index)
                continue
            }
            if isControl(value) {
                return problem(index, "control character \(name(value))" + (place == .comment || place == .plain ? "; the file takes none but tab" : " " + inValue))
            }
            switch place {
            case .plain:
                let quotes = value == 0x22 || value == 0x27 ? run(of: value, at: index) : 0
                if value == 0x23 {
                    place = .comment
                } else if quotes >= 3 {
                    place = value == 0x22 ? .multiLineBasic : .multiLineLiteral
                    index += 3
                    // A line end right after the opening quotes is not in the string.
                    let trimmed = lineEnd(index)
                    if trimmed > 0 {
                        index += trimmed
                        newLine(after: index)
                    }
                    continue
                } else if quotes == 2 {
                    index += 2  // ""
                    continue
                } else if quotes == 1 {
                    place = value == 0x22 ? .basic : .literal
                }
            case .comment:
                break
            case .basic, .multiLineBasic:
                if value == 0x22 {
                    let quotes = run(of: 0x22, at: index)
                    if place == .basic {
                        place = .plain
                    } else if quotes >= 3 {
                        place = .plain
                        index += min(quotes, 5)
                        continue
                    } else {
                        index += quotes
                        continue
                    }
                } else if value == 0x5C {
                    switch escape(at: index) {
                    case .character(let made, let length):
                        if isControl(made) {
                            let written = String(String.UnicodeScalarView(scalars[index..<min(index + length, scalars.count)]))
                            return problem(index, "control character \(name(made)) (\"\(written)\") \(inValue)")
                        }
                        index += length
                        continue
                    case .lineContinues:
                        guard place == .multiLineBasic else { break }
                        // The backslash, spaces and line ends up to the next text are not in the string.
                        index += 1
                        while let next = scalar(index) {
                            if next == 0x20 || next == 0x09 {
                                index += 1
                            } else if lineEnd(index) > 0 {
                                index += lineEnd(index)
                                newLine(after: index)
                            } else {
                                break
                            }
                        }
                        continue
                    case .unknown:
                        break
                    }
                }
            case .literal:
                if value == 0x27 { place = .plain }
            case .multiLineLiteral:
                if value == 0x27 {
                    let quotes = run(of: 0x27, at: index)
                    if quotes >= 3 { place = .plain }
                    index += quotes >= 3 ? min(quotes, 5) : quotes
                    continue
                }
            }
            index += 1
        }

        return nil
    }

    /// What a bare key is made of: ASCII letters, digits, - and _.
    static func isBare(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_"
    }

    /// One line of a file of `name = "value"` lines (the imported feeds):
    /// a bare or quoted name, a string in double or single quotes, maybe a
    /// comment. Nil for a blank or comment line. `number` is the line's.
    public static func assignment(_ line: Substring, number: Int) throws(Problem) -> (key: String, value: String)? {
        var scalars = Array(line.unicodeScalars)
        if scalars.last == "\r" { scalars.removeLast() }
        var index = 0
        func fail(_ message: String) -> Problem { Problem(line: number, column: index + 1, message: message) }
        if let control = scalars.firstIndex(where: { isControl($0.value) }) {
            index = control
            throw fail("control character \(name(scalars[control].value)) \(inValue)")
        }
        func skipBlanks() {
            while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        }
        func string() throws(Problem) -> String {
            let quote = scalars[index]
            var text = String.UnicodeScalarView()
            index += 1
            while index < scalars.count {
                let next = scalars[index]
                if next == quote {
                    index += 1
                    return String(text)
                }
                guard quote == "\"", next == "\\" else {
                    text.append(next)
                    index += 1
                    continue
                }
                let letter = index + 1 < scalars.count ? scalars[index + 1] : " "
                let digits = letter == "u" ? 4 : letter == "U" ? 8 : 0
                let length = min(2 + digits, scalars.count - index)
                var made: UInt32?
                switch letter {
                case "\"", "\\": made = letter.value
                case "b", "t", "n", "f", "r", "e": made = ["b": 0x08, "t": 0x09, "n": 0x0A, "f": 0x0C, "r": 0x0D, "e": 0x1B][letter]
                default:
                    guard digits > 0, length == 2 + digits, scalars[(index + 2)..<(index + length)].allSatisfy(\.properties.isASCIIHexDigit) else { break }
                    made = UInt32(String(String.UnicodeScalarView(scalars[(index + 2)..<(index + length)])), radix: 16)
                }
                guard let made, let scalar = Unicode.Scalar(made) else { throw fail("an unknown escape (write \\\\ for a backslash)") }
                if isControl(made) {
                    let written = String(String.UnicodeScalarView(scalars[index..<(index + length)]))
                    throw fail("control character \(name(made)) (\"\(written)\") \(inValue)")
                }
                text.append(scalar)
                index += length
            }
            throw fail("a string without its closing quote")
        }

        skipBlanks()
        if index == scalars.count || scalars[index] == "#" { return nil }
        let key: String
        if scalars[index] == "\"" || scalars[index] == "'" {
            key = try string()
        } else {
            let start = index
            while index < scalars.count, isBare(scalars[index]) {
                index += 1
            }
            guard index > start else { throw fail("expected a name, as in name = \"https://example.org/feed.xml\"") }
            key = String(String.UnicodeScalarView(scalars[start..<index]))
        }
        skipBlanks()
        guard index < scalars.count, scalars[index] == "=" else { throw fail("expected = after the name \"\(key)\"") }
        index += 1
        skipBlanks()
        guard index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" else { throw fail("the value of \"\(key)\" is a string in quotes") }
        let value = try string()
        skipBlanks()
        guard index == scalars.count || scalars[index] == "#" else { throw fail("text after the value of \"\(key)\" (one name = \"value\" a line)") }
        return (key, value)
    }
}
