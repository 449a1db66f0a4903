import MediaModel

/// Turns the bytes a terminal sends into keys: UTF-8 text, control bytes,
/// and the CSI/SS3 sequences of xterm, VT220, rxvt and the Linux console.
/// Bytes of a sequence split across reads are kept for the next call; a
/// lone ESC at the end of a read is the Escape key.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.next(pending, from: index) else { break }
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// The key at `start` and the bytes it takes (a nil key: bytes to skip),
    /// or nil when more bytes are needed.
    static func next(_ bytes: [UInt8], from start: Int) -> (Key?, Int)? {
        let byte = bytes[start]
        switch byte {
        case 0x1B:
            guard start + 1 < bytes.count else { return (.escape, 1) }
            let introducer = bytes[start + 1]
            if introducer == UInt8(ascii: "[") { return csi(bytes, from: start) }
            if introducer == UInt8(ascii: "O") {
                guard start + 2 < bytes.count else { return nil }
                return (ss3(bytes[start + 2]), 3)
            }
            if introducer == 0x1B { return (.escape, 1) }
            // Alt and a key: the key itself.
            return (nil, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x00..<0x20: return (nil, 1)
        default:
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            guard start + length <= bytes.count else { return nil }
            let scalarBytes = bytes[start..<(start + length)]
            guard let text = String(validating: scalarBytes, as: UTF8.self), let character = text.first else { return (nil, 1) }
            return (.character(character), length)
        }
    }

    private static func ss3(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        default: return nil
        }
    }

    /// ESC [ parameters final: cursor keys, ~-keys and SGR mouse reports.
    private static func csi(_ bytes: [UInt8], from start: Int) -> (Key?, Int)? {
        var end = start + 2
        while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else {
            // An unfinished sequence: wait for the rest, unless it is too long to be one.
            return end - start > 32 ? (nil, end - start) : nil
        }
        let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
        let final = bytes[end]
        let length = end - start + 1
        if parameters.hasPrefix("<") {
            return (mouse(parameters.dropFirst(), pressed: final == UInt8(ascii: "M")), length)
        }
        switch final {
        case UInt8(ascii: "~"):
            switch parameters.split(separator: ";").first {
            case "1", "7": return (.home, length)
            case "4", "8": return (.end, length)
            case "5": return (.pageUp, length)
            case "6": return (.pageDown, length)
            default: return (nil, length)
            }
        default:
            // Ctrl (modifier 5) and an arrow.
            if parameters == "1;5" {
                switch ss3(final) {
                case .left?: return (.controlLeft, length)
                case .right?: return (.controlRight, length)
                case .up?: return (.controlUp, length)
                case .down?: return (.controlDown, length)
                default: break
                }
            }
            return (ss3(final), length)
        }
    }

    private static func mouse(_ parameters: Substring, pressed: Bool) -> Key? {
        let fields = parameters.split(separator: ";").compactMap { Int($0) }
        guard pressed, fields.count == 3 else { return nil }
        switch fields[0] {
        case 0: return .click(column: fields[1] - 1, row: fields[2] - 1)
        case 64: return .wheel(up: true)
        case 65: return .wheel(up: false)
        default: return nil
        }
    }
}
