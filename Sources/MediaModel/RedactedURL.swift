extension String {
    /// The text with the userinfo of every URL in it (`alice:s3cr3t@` in
    /// `http://alice:s3cr3t@example.org/feed.xml`) replaced by `***`: the
    /// one way a URL, or a message that quotes one, is shown (messages, log
    /// lines, titles, tables, MPRIS), so that a password in a feed's URL
    /// never is. Text without `://` and `@` is returned as it is.
    public var redactingUserinfo: String {
        // Read in place first: almost no text has an "@" (every URL of a large list passes here).
        var text = self
        guard text.withUTF8({ $0.contains(UInt8(ascii: "@")) }), contains("://") else { return self }
        var result = ""
        var rest = self[...]
        while let separator = rest.range(of: "://") {
            result += rest[..<separator.upperBound]
            let after = rest[separator.upperBound...]
            // The authority ends where the path, query or fragment begins,
            // or where the text around the URL does (a space, a quote).
            // (An apostrophe is a password's character too, not an end.)
            let end = after.firstIndex { "/?#\\\"<>`".contains($0) || $0.isWhitespace || $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } } ?? after.endIndex
            // The last @: one left unescaped in a password is curl's too.
            if let at = after[..<end].lastIndex(of: "@") {
                result += "***"
                rest = after[at...]
            } else {
                rest = after
            }
        }
        return result + rest
    }
}
