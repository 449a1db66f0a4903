/// Cuts a byte stream into newline-terminated lines of bounded length.
///
/// A line longer than the limit is reported once as `.tooLong` and the rest
/// of it, up to its newline, is skipped: a runaway client costs the reader
/// at most `maximumLength` bytes of memory.
public struct LineSplitter: Sendable {
    public enum Piece: Equatable, Sendable {
        case line([UInt8])
        case tooLong
    }

    public let maximumLength: Int
    private var pending: [UInt8] = []
    private var skipping = false

    public init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// The complete lines in `bytes` (without their newline; a trailing CR is
    /// dropped too), in order.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) -> [Piece] {
        var pieces: [Piece] = []
        var start = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: 0x0A)
            let end = newline ?? bytes.count
            if !skipping {
                if pending.count + (end - start) > maximumLength {
                    pieces.append(.tooLong)
                    pending.removeAll(keepingCapacity: false)
                    skipping = true
                } else {
                    pending.append(contentsOf: bytes[start..<end])
                }
            }
            guard newline != nil else { break }
            if !skipping { pieces.append(.line(Self.trimmed(pending))) }
            pending.removeAll(keepingCapacity: true)
            skipping = false
            start = end + 1
        }
        return pieces
    }

    /// What is left at end of stream: a last line without its newline.
    public mutating func finish() -> Piece? {
        defer { pending.removeAll(); skipping = false }
        if skipping || pending.isEmpty { return nil }
        return .line(Self.trimmed(pending))
    }

    private static func trimmed(_ line: [UInt8]) -> [UInt8] {
        line.last == 0x0D ? Array(line.dropLast()) : line
    }
}
