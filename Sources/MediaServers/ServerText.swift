import Foundation
import MediaTerminal

/// A server's text (a Subsonic tag, a UPnP title or device name, an error
/// it states) made one safe line for a terminal and the kept copy:
/// MediaTerminal's `DisplayWidth.singleLine` (controls, tabs, line and
/// paragraph separators as spaces, direction marks inert), at most 500
/// characters.
enum ServerText {
    static func line(_ text: String) -> String {
        // Printable ASCII (most tags) is safe as it is.
        if text.utf8.count <= 500, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        return DisplayWidth.singleLine(String(String.UnicodeScalarView(text.unicodeScalars.prefix(500))))
    }

    /// One line, as above, without spaces at its ends.
    static func clean(_ text: String) -> String {
        let line = self.line(text)
        // Printable ASCII but a space at both ends: nothing to trim (a
        // Character's properties, asked of every title, artist and album,
        // cost 3 % of reading a server's pages).
        if let first = line.utf8.first, let last = line.utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F { return line }
        guard line.first?.isWhitespace == true || line.last?.isWhitespace == true else { return line }
        return line.trimmingCharacters(in: .whitespaces)
    }
}
