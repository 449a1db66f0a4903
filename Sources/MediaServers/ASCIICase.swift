/// A server's text read by its ASCII bytes, in place: comparisons where only
/// ASCII letters have a case (URL schemes and host names: RFC 3986, RFC 4343;
/// UPnP classes and MIME types) and ids of numbers. Unicode's lowercasing,
/// and even a byte iterator, took a tenth of reading a 10,000-item container.
extension String {
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        var text = self, other = other
        return text.withUTF8 { mine in
            other.withUTF8 { theirs in
                guard mine.count == theirs.count else { return false }
                for index in mine.indices where asciiLower(mine[index]) != asciiLower(theirs[index]) { return false }
                return true
            }
        }
    }

    /// `prefix` is written in lowercase.
    func hasLowercasePrefixIgnoringASCIICase(_ prefix: StaticString) -> Bool {
        var text = self
        return text.withUTF8 { bytes in
            let count = prefix.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: count)
            for index in 0..<count where asciiLower(bytes[index]) != expected[index] { return false }
            return true
        }
    }
}

extension String {
    /// Whether every character is a number (a server's id of numbers alone
    /// takes a prefix, or it would read as an item's number): ASCII by its
    /// bytes, anything else as Unicode says.
    var isAllNumbers: Bool {
        var text = self
        let ascii: Bool? = text.withUTF8 { bytes in
            var digits = true
            for byte in bytes {
                if byte >= 0x80 { return nil }
                if byte &- 0x30 >= 10 { digits = false }
            }
            return digits
        }
        return ascii ?? allSatisfy(\.isNumber)
    }
}

@inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
}
