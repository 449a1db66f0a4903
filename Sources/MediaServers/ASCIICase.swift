/// Comparisons where only ASCII letters have a case: URL schemes and host
/// names (RFC 3986, RFC 4343), UPnP classes and MIME types. Byte by byte:
/// Unicode's lowercasing took a tenth of reading a 10,000-item container.
extension StringProtocol {
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    /// `prefix` is written in lowercase.
    func hasLowercasePrefixIgnoringASCIICase(_ prefix: String) -> Bool {
        var bytes = utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next(), asciiLower(byte) == expected else { return false }
        }
        return true
    }
}

@inline(__always)
private func asciiLower(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
}
