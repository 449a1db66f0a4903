/// A line and column in a text, both 1-based, columns counted in characters.
public struct SourcePosition: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// Line and column of byte offsets in a UTF-8 text, worked out only when
/// a message needs them: tracking them while parsing cost a scan of the
/// line per value, quadratic on a one-line feed.
public struct TextPositions {
    private let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The position of one offset (one pass up to it).
    public func position(of offset: Int) -> SourcePosition {
        positions(of: [offset])[0]
    }

    /// The positions of ascending offsets, in one pass over the text.
    public func positions(of offsets: [Int]) -> [SourcePosition] {
        var result: [SourcePosition] = []
        result.reserveCapacity(offsets.count)
        var line = 1
        var column = 1
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        bytes.withUnsafeBufferPointer { bytes in
            for offset in offsets {
                let end = min(offset, bytes.count)
                while index < end {
                    let byte = bytes[index]
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else if byte & 0xC0 != 0x80 {
                        // Columns count characters, not bytes: UTF-8 continuation bytes don't count.
                        column += 1
                    }
                    index += 1
                }
                result.append(SourcePosition(line: line, column: column))
            }
        }
        return result
    }
}

/// A parsed JSON value that remembers where it started (a byte offset), so
/// that feed errors can point at the record they are about.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text as written, so that `1` and `1.0` stay distinguishable.
    case number(String)
    case string(String)
    case array([Located])
    /// Members in file order; duplicates are kept, the last one wins on lookup.
    case object([(key: String, value: Located)])

    public struct Located: Sendable, Equatable {
        public var value: JSONValue
        /// Where the value starts, in bytes from the start of the text.
        public var offset: Int
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member named `key` of an object (the last one if repeated).
    public subscript(key: String) -> Located? {
        guard case let .object(members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// A short name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON syntax error with the position where parsing stopped.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var position: SourcePosition
    public var message: String

    public var description: String { "\(position): \(message)" }
}

/// A strict JSON parser over UTF-8 bytes, in one linear pass.
///
/// Foundation's parsers report byte offsets at best; a person editing a feed by
/// hand needs `line:column`, so we parse ourselves, keep offsets, and turn an
/// offset into a line and column only for a message (`TextPositions`).
public struct JSONParser {
    /// The text, read in place (an array's checked subscript on every byte
    /// was a third of the parse).
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private static let maximumDepth = 512

    /// Arrays longer than `maximumArrayLength` stop the parse: memory stays
    /// a small multiple of the text (a 15 MB file of `{},` lines is four
    /// million values).
    public static func parse(_ bytes: [UInt8], maximumArrayLength: Int = .max) throws(JSONSyntaxError) -> JSONValue.Located {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            var parser = JSONParser(bytes: buffer, maximumArrayLength: maximumArrayLength)
            return try parser.parseDocument()
        }
    }

    private let maximumArrayLength: Int

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumArrayLength: Int) {
        self.bytes = bytes
        self.maximumArrayLength = maximumArrayLength
    }

    private func fail(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(position: TextPositions(Array(bytes)).position(of: index), message: message)
    }

    private mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue.Located {
        // A UTF-8 byte order mark is tolerated, as editors on some systems add one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        if index >= bytes.count { throw fail("the file is empty; expected a JSON object or array") }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw fail("unexpected \(describeCurrent()) after the end of the JSON document")
        }
        return value
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte == 0x20 { return "space" }
        if byte >= 0x80 { return "non-ASCII character" }
        return "control character 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D, 0x0A:
                index += 1
            default:
                return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue.Located {
        let start = index
        guard index < bytes.count else { throw fail("unexpected end of file; expected a value") }
        let value: JSONValue
        switch bytes[index] {
        case UInt8(ascii: "{"): value = try parseObject()
        case UInt8(ascii: "["): value = try parseArray()
        case UInt8(ascii: "\""): value = .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); value = .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); value = .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); value = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
        default: throw fail("unexpected \(describeCurrent()); expected a value")
        }
        return JSONValue.Located(value: value, offset: start)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let text = literal.utf8Start
        for offset in 0..<literal.utf8CodeUnitCount {
            guard index < bytes.count, bytes[index] == text[offset] else {
                throw fail("unexpected \(describeCurrent()); expected '\(literal)'")
            }
            index += 1
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1  // {
        var members: [(key: String, value: JSONValue.Located)] = []
        members.reserveCapacity(8)  // a feed record's fields: no regrowth
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of file inside an object; expected '\"' or '}'") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw fail("unexpected \(describeCurrent()); expected a member name in double quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("unexpected \(describeCurrent()); expected ':' after member name \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of file inside an object; expected ',' or '}'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    throw fail("trailing comma before '}'")
                }
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default:
                throw fail("unexpected \(describeCurrent()); expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1  // [
        var elements: [JSONValue.Located] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if elements.count == maximumArrayLength {
                throw fail("more than \(maximumArrayLength) items in an array; mediaplay reads feeds of at most \(maximumArrayLength) items (split the feed)")
            }
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of file inside an array; expected ',' or ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    throw fail("trailing comma before ']'")
                }
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default:
                throw fail("unexpected \(describeCurrent()); expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        // Plain runs are sliced straight from the input; only escapes are
        // built byte by byte. One UTF-8 decode per string.
        let runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[runStart..<index], as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var utf8 = Array(bytes[runStart..<index])
        while true {
            guard index < bytes.count else { throw fail("unexpected end of file inside a string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 {
                throw fail(byte == 0x0A ? "line break inside a string; write it as \\n" : "control character inside a string")
            }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of file inside a string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        // A high surrogate must be followed by an escaped low one.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired UTF-16 surrogate in \\u escape")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid UTF-16 surrogate pair in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw fail("unpaired UTF-16 surrogate in \\u escape")
                    }
                    utf8.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
                default:
                    index -= 1
                    throw fail("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
                }
                continue
            }
            utf8.append(byte)
            index += 1
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw fail("unexpected end of file in \\u escape") }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("invalid number: leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}
