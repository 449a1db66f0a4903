/// Writes JSON text by hand, in the layout of Foundation's JSONEncoder with
/// `.prettyPrinted` (two-space indent, `"key" : value`): for documents with
/// one entry per feed item, where JSONEncoder's boxing cost a third of a
/// large `list --json`. The caller writes keys in sorted order.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    /// Per open container: whether a member has been written yet.
    private var hasMembers: [Bool] = []
    /// A key was just written: the value follows on the same line.
    private var afterKey = false

    public init(pretty: Bool = true, reserving capacity: Int = 0) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// A writer for a part of a document, inside containers another writer
    /// opened: per container, outermost first, whether it has a member yet.
    public init(pretty: Bool = true, inside containers: [Bool], reserving capacity: Int = 0) {
        self.init(pretty: pretty, reserving: capacity)
        hasMembers = containers
    }

    /// Hands what is written so far to `output` and starts over in the same
    /// storage: a large document goes out in pieces instead of megabytes
    /// held (and paged in) at once.
    /// Returns what `output` returns (false: it failed).
    public mutating func flush(to output: ([UInt8]) -> Bool) -> Bool {
        defer { bytes.removeAll(keepingCapacity: true) }
        return output(bytes)
    }

    /// Ends the document with a newline.
    public mutating func newlineAtEnd() {
        bytes.append(0x0A)
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A member name encoded once, with what follows it in either layout,
    /// for documents that write the same names for every item (a name's
    /// scan, copy and separator were most of the cost of a large list).
    public struct Key: Sendable {
        /// A name in the program's text: written from there, with no
        /// reference counting (two threads writing a list's pieces retained
        /// the same key arrays on every row, a cache line shared by both).
        let name: StaticString

        /// `name` must need no escaping (plain ASCII letters and digits).
        public init(_ name: StaticString) {
            self.name = name
        }
    }

    public mutating func key(_ name: Key) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    public mutating func string(_ value: String?) {
        guard let value else { return null() }
        separate()
        appendString(value)
    }

    public mutating func number(_ value: Int?) {
        guard let value else { return null() }
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func number(_ value: Int64?) {
        number(value.map { Int($0) })
    }

    /// Whole numbers as integers (2, not 2.0), as JSONEncoder writes them.
    public mutating func number(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        separate()
        if value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int(value)).utf8)
        } else {
            bytes.append(contentsOf: "\(value)".utf8)
        }
    }

    public mutating func bool(_ value: Bool?) {
        guard let value else { return null() }
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    // MARK: - Layout

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        hasMembers.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let had = hasMembers.removeLast()
        if had { newline() }
        bytes.append(bracket)
    }

    /// Before a value or key: a comma after an earlier member, and the new
    /// line and indent of a member (not after a key: its value stays there).
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard let last = hasMembers.indices.last else { return }
        let comma = hasMembers[last]
        if !comma { hasMembers[last] = true }
        let depth = hasMembers.count
        // The comma, the line break and the indent in one copy.
        if pretty, depth < Self.breaks.count / 2 - 1 {
            Self.breaks.withUnsafeBufferPointer { bytes.append(contentsOf: $0[(comma ? 0 : 1)...(2 * depth + 1)]) }
            return
        }
        if comma { bytes.append(UInt8(ascii: ",")) }
        newline()
    }

    private mutating func newline() {
        guard pretty else { return }
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(0x20, count: 2 * hasMembers.count))
    }

    /// A comma, a line break and the indents of the first 30 levels.
    private static let breaks: [UInt8] = [UInt8(ascii: ","), 0x0A] + [UInt8](repeating: 0x20, count: 60)

    /// A JSON string: quotes, backslashes and control characters escaped,
    /// everything else (slashes, non-ASCII) as is.
    private mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Runs of bytes that need no escape are copied whole, scanned in
        // place (a native string's bytes are contiguous): most strings are
        // one run, a description with line breaks a few.
        var text = text
        text.withUTF8 { stored in
            var runStart = 0
            for index in 0..<stored.count {
                let byte = stored[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: stored[runStart..<index])) }
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(UInt8(ascii: "u"))
                    bytes.append(UInt8(ascii: "0"))
                    bytes.append(UInt8(ascii: "0"))
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0xF)])
                }
            }
            if runStart < stored.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: stored[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
