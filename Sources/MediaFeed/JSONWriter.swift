/// Writes JSON text by hand, in the layout of Foundation's JSONEncoder with
/// `.prettyPrinted` (two-space indent, `"key" : value`; an empty container
/// `[]` or `{}` on its line, where Foundation on Linux breaks it): for documents with
/// one entry per feed item, where JSONEncoder's boxing cost a third of a
/// large `list --json`. The caller writes keys in sorted order.
public struct JSONWriter: ~Copyable, @unchecked Sendable {
    // The text so far, in a buffer of its own that only this writer holds
    // (noncopyable: no reference counting, no uniqueness check): an append
    // is a capacity check and a copy, inlined where the writer is used.
    // (Array's generic appends cost about 100 instructions a call, most of
    // a large list's JSON.)
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int
    @usableFromInline let pretty: Bool
    /// Per open container, the outermost in the lowest bit: whether a
    /// member has been written yet. Documents written here are a few levels deep.
    @usableFromInline var members: UInt64 = 0
    @usableFromInline var depth = 0
    /// A key was just written: the value follows on the same line.
    @usableFromInline var afterKey = false

    /// What is written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    public init(pretty: Bool = true, reserving capacity: Int = 0) {
        self.pretty = pretty
        self.capacity = max(capacity, 256)
        base = .allocate(capacity: self.capacity)
    }

    /// A writer for a part of a document, inside containers another writer
    /// opened: per container, outermost first, whether it has a member yet.
    public init(pretty: Bool = true, inside containers: [Bool], reserving capacity: Int = 0) {
        self.init(pretty: pretty, reserving: capacity)
        precondition(containers.count < 64, "JSONWriter writes documents less than 64 levels deep")
        for (level, has) in containers.enumerated() where has { members |= 1 << UInt64(level) }
        depth = containers.count
    }

    deinit { base.deallocate() }

    /// Hands what is written so far to `output` and starts over in the same
    /// storage: a large document goes out in pieces instead of megabytes
    /// held (and paged in) at once.
    /// Returns what `output` returns (false: it failed).
    public mutating func flush(to output: ([UInt8]) -> Bool) -> Bool {
        defer { count = 0 }
        return output(bytes)
    }

    /// Ends the document with a newline.
    public mutating func newlineAtEnd() {
        put(0x0A)
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A member name known when the program is built, for documents that
    /// write the same names for every item.
    public struct Key: Sendable {
        /// A name in the program's text: written from there, with no
        /// reference counting (two threads writing a list's pieces retained
        /// the same key arrays on every row, a cache line shared by both).
        @usableFromInline let name: StaticString

        /// `name` must need no escaping (plain ASCII letters and digits).
        public init(_ name: StaticString) {
            self.name = name
        }
    }

    @inlinable public mutating func key(_ name: Key) {
        separate()
        // All through its buffer: a one-character literal has no pointer of
        // its own (its `utf8Start` and `utf8CodeUnitCount` trap).
        name.name.withUTF8Buffer { text in
            let length = text.count
            let at = room(length + 5)
            at[0] = UInt8(ascii: "\"")
            if let start = text.baseAddress { (at + 1).update(from: start, count: length) }
            at[length + 1] = UInt8(ascii: "\"")
            if pretty {
                at[length + 2] = 0x20
                at[length + 3] = UInt8(ascii: ":")
                at[length + 4] = 0x20
                count += length + 5
            } else {
                at[length + 2] = UInt8(ascii: ":")
                count += length + 3
            }
        }
        afterKey = true
    }

    @inlinable public mutating func string(_ value: String?) {
        guard let value else { return null() }
        separate()
        appendString(value)
    }

    @inlinable public mutating func number(_ value: Int?) {
        guard let value else { return null() }
        separate()
        putDecimal(value)
    }

    public mutating func number(_ value: Int64?) {
        number(value.map { Int($0) })
    }

    /// Whole numbers as integers (2, not 2.0), as JSONEncoder writes them.
    public mutating func number(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        separate()
        if value == value.rounded(), abs(value) < 1e15 {
            putDecimal(Int(value))
        } else {
            var text = value.description
            text.withUTF8 { put($0) }
        }
    }

    @inlinable public mutating func bool(_ value: Bool?) {
        guard let value else { return null() }
        separate()
        put(value ? "true" : "false")
    }

    @inlinable public mutating func null() {
        separate()
        put("null")
    }

    // MARK: - Layout

    private mutating func open(_ bracket: UInt8) {
        separate()
        put(bracket)
        precondition(depth < 63, "JSONWriter writes documents less than 64 levels deep")
        members &= ~(1 << UInt64(depth))
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if members & (1 << UInt64(depth)) != 0 { newline() }
        put(bracket)
    }

    /// Before a value or key: a comma after an earlier member, and the new
    /// line and indent of a member (not after a key: its value stays there).
    @inlinable mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        let bit: UInt64 = 1 << UInt64(depth - 1)
        if members & bit != 0 {
            put(UInt8(ascii: ","))
        } else {
            members |= bit
        }
        newline()
    }

    @inlinable mutating func newline() {
        guard pretty else { return }
        let indent = 2 * depth
        let at = room(indent + 1)
        at[0] = 0x0A
        (at + 1).update(repeating: 0x20, count: indent)
        count += indent + 1
    }

    // MARK: - Bytes

    /// Where the next `more` bytes go, with room for them.
    @inlinable mutating func room(_ more: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < more { grow(toHold: more) }
        return base + count
    }

    /// Room for `more` bytes past `count`, the buffer doubled as needed.
    @usableFromInline mutating func grow(toHold more: Int) {
        var grown = capacity
        while grown - count < more { grown *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = grown
    }

    @inlinable mutating func put(_ byte: UInt8) {
        room(1).pointee = byte
        count += 1
    }

    @inlinable mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        room(bytes.count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inlinable mutating func put(_ text: StaticString) {
        text.withUTF8Buffer { put($0) }
    }

    /// A whole number's decimal digits, written in place.
    @usableFromInline mutating func putDecimal(_ value: Int) {
        // 20 digits and a sign at most.
        let at = room(21)
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        var written = 0
        if value < 0 {
            at[0] = UInt8(ascii: "-")
            written = 1
        }
        magnitude = value.magnitude
        var index = written + digits - 1
        repeat {
            at[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            index -= 1
        } while magnitude > 0
        count += written + digits
    }

    /// A JSON string: quotes, backslashes and control characters escaped,
    /// everything else (slashes, non-ASCII) as is.
    @usableFromInline mutating func appendString(_ text: String) {
        put(UInt8(ascii: "\""))
        // Runs of bytes that need no escape are copied whole, scanned in
        // place (a native string's bytes are contiguous): most strings are
        // one run, a description with line breaks a few.
        var text = text
        text.withUTF8 { stored in
            var runStart = 0
            for index in 0..<stored.count {
                let byte = stored[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { put(UnsafeBufferPointer(rebasing: stored[runStart..<index])) }
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): put("\\\"")
                case UInt8(ascii: "\\"): put("\\\\")
                case 0x0A: put("\\n")
                case 0x0D: put("\\r")
                case 0x09: put("\\t")
                default:
                    put("\\u00")
                    put(Self.hexDigits[Int(byte >> 4)])
                    put(Self.hexDigits[Int(byte & 0xF)])
                }
            }
            if runStart < stored.count { put(UnsafeBufferPointer(rebasing: stored[runStart...])) }
        }
        put(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
