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

/// A parsed JSON value that remembers where it started, so that feed errors
/// can point at the record they are about.
public indirect enum JSONValue: Sendable, Equatable {
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
        public var position: SourcePosition
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

/// A strict RFC 8259 parser over UTF-8 bytes that tracks line and column.
///
/// Foundation's parsers report byte offsets at best; a person editing a feed by
/// hand needs `line:column`, so we parse ourselves. Feeds are small, and a
/// single pass over the bytes is plenty fast.
public struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private static let maximumDepth = 512

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue.Located {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var position: SourcePosition {
        // Columns count characters, not bytes: skip UTF-8 continuation bytes.
        var column = 1
        var i = lineStart
        while i < index && i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SourcePosition(line: line, column: column)
    }

    private func fail(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(position: position, message: message)
    }

    private mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue.Located {
        // A UTF-8 byte order mark is tolerated, as editors on some systems add one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
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
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default:
                return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue.Located {
        let start = position
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
        return JSONValue.Located(value: value, position: start)
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
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ bytes: ArraySlice<UInt8>, into view: inout String.UnicodeScalarView) {
            view.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw fail("unexpected end of file inside a string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(bytes[runStart..<index], into: &scalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 {
                throw fail(byte == 0x0A ? "line break inside a string; write it as \\n" : "control character inside a string")
            }
            if byte == UInt8(ascii: "\\") {
                flush(bytes[runStart..<index], into: &scalars)
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of file inside a string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
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
                    scalars.append(Unicode.Scalar(code)!)
                default:
                    index -= 1
                    throw fail("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
                }
                runStart = index
                continue
            }
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
