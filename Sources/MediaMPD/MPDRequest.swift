/// One request line of MPD's protocol, split into its command and
/// arguments: words are separated by spaces or tabs; a word in double
/// quotes may hold spaces, and inside quotes a backslash makes the next
/// character literal (`\"`, `\\`). A quote left open, or a quoted word
/// running into the next, is a bad request.
public enum MPDRequest {
    /// A line longer than this (without its newline) closes the connection.
    public static let maximumLineLength = 64 * 1024
    /// A command list longer than this closes the connection.
    public static let maximumListLength = 10_000
    /// And at most this many bytes of them (MPD's default max_command_list_size, 2 MiB).
    public static let maximumListBytes = 2 << 20

    public struct Failure: Error, Equatable, Sendable {
        public let message: String
    }

    /// The words of `line` (its newline already cut off).
    public static func words(_ line: [UInt8]) throws(Failure) -> [String] {
        var words: [String] = []
        var index = 0
        let count = line.count
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while index < count {
            while index < count, isSpace(line[index]) { index += 1 }
            guard index < count else { break }
            var word: [UInt8] = []
            if line[index] == 0x22 {
                index += 1
                var closed = false
                while index < count {
                    let byte = line[index]
                    if byte == 0x5C {
                        index += 1
                        guard index < count else { break }
                        word.append(line[index])
                    } else if byte == 0x22 {
                        closed = true
                        index += 1
                        break
                    } else {
                        word.append(byte)
                    }
                    index += 1
                }
                guard closed else { throw Failure(message: "Missing closing '\"'") }
                guard index >= count || isSpace(line[index]) else { throw Failure(message: "Space expected after closing '\"'") }
            } else {
                while index < count, !isSpace(line[index]) {
                    word.append(line[index])
                    index += 1
                }
            }
            words.append(String(decoding: word, as: UTF8.self))
        }
        return words
    }

    /// A word as one quoted argument, for a client to send.
    public static func quoted(_ word: String) -> String {
        var text = "\""
        for character in word {
            if character == "\"" || character == "\\" { text.append("\\") }
            text.append(character)
        }
        return text + "\""
    }
}

/// MPD's error codes (the number in `ACK [code@index]`).
public enum MPDErrorCode: Int, Sendable {
    case notList = 1
    case argument = 2
    case password = 3
    case permission = 4
    case unknown = 5
    case noExist = 50
    case playlistMax = 51
    case system = 52
    case playlistLoad = 53
    case updateAlready = 54
    case playerSync = 55
    case exist = 56
}

/// A command refused: written as `ACK [code@index] {command} message`.
public struct MPDError: Error, Sendable, Equatable {
    public let code: MPDErrorCode
    public let message: String

    public init(_ code: MPDErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// An answer being written: `key: value` lines, binary chunks, then `OK`,
/// `list_OK` or one `ACK` line.
public struct MPDAnswer: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// One `key: value` line; a value's line breaks and other control
    /// characters become spaces (one value, one line).
    public mutating func add(_ key: String, _ value: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(contentsOf: ": ".utf8)
        for byte in value.utf8 { bytes.append(byte < 0x20 || byte == 0x7F ? 0x20 : byte) }
        bytes.append(0x0A)
    }

    public mutating func add(_ key: String, _ value: Int) { add(key, String(value)) }

    /// Seconds with three decimals, as MPD writes `elapsed` and `duration`.
    public mutating func add(_ key: String, seconds: Double) {
        let milliseconds = Int((max(0, seconds.isFinite ? seconds : 0) * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        add(key, "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)")
    }

    /// `binary: N`, the bytes, then a newline.
    public mutating func addBinary(_ data: some Collection<UInt8>) {
        add("binary", data.count)
        bytes.append(contentsOf: data)
        bytes.append(0x0A)
    }

    public mutating func append(_ other: MPDAnswer) { bytes.append(contentsOf: other.bytes) }

    public mutating func ok() { bytes.append(contentsOf: "OK\n".utf8) }
    public mutating func listOK() { bytes.append(contentsOf: "list_OK\n".utf8) }

    public mutating func acknowledge(_ error: MPDError, index: Int, command: String) {
        let safe = String(decoding: command.utf8.map { $0 < 0x20 ? 0x20 : $0 }, as: UTF8.self)
        var line = "ACK [\(error.code.rawValue)@\(index)] {\(safe)} "
        line += String(decoding: error.message.utf8.map { $0 < 0x20 ? 0x20 : $0 }, as: UTF8.self)
        bytes.append(contentsOf: line.utf8)
        bytes.append(0x0A)
    }
}
