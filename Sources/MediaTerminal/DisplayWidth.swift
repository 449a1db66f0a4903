/// How many terminal columns text takes: wide East Asian characters and emoji
/// take two, combining marks and zero-width characters none.
///
/// glibc's `wcwidth` depends on the process locale (it answers -1 for any
/// non-ASCII character in the C locale), so we decide from Unicode properties.
public enum DisplayWidth {
    public static func of(_ text: String) -> Int {
        // Printable ASCII: a column a byte (most titles; a grid of 100,000 counts them all).
        var columns = 0
        for byte in text.utf8 {
            guard byte >= 0x20 && byte < 0x7F else { return text.reduce(0) { $0 + of($1) } }
            columns += 1
        }
        return columns
    }

    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1 {
            // An emoji sequence (flag, skin tone, ZWJ family) or text + VS16 is
            // drawn as one wide glyph; a letter with combining marks as one column.
            if character.unicodeScalars.contains(where: { $0.value == 0xFE0F || $0.properties.isEmojiPresentation }) {
                return 2
            }
            return of(first)
        }
        return of(first)
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 { return 0 }
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return 0
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) || value == 0x200B { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(value) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, W and F).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
             0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1,
             0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF,
             0x1B000...0x1B2FF, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` columns, ending in "…" when cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` padded with spaces to exactly `width` columns (cut first if longer).
    public static func pad(_ text: String, to width: Int, alignRight: Bool = false) -> String {
        let cut = truncate(text, to: width)
        let gap = String(repeating: " ", count: max(0, width - of(cut)))
        return alignRight ? gap + cut : cut + gap
    }

    /// Text from a feed, a file or a peer made safe to print on one line:
    /// control characters (C0, DEL, C1), line separators and bidirectional
    /// overrides are shown escaped (`\e`, `\n`, `\u{202E}`), never sent to
    /// the terminal, and the text is cut at `maxCharacters` with "…".
    public static func escaped(_ text: String, maxCharacters: Int = 1000) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= maxCharacters {
                result += "…"
                break
            }
            let value = scalar.value
            switch value {
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0x1B: result += "\\e"
            case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029:
                result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            default:
                if isDirectionControl(scalar) {
                    result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
            count += 1
        }
        return result
    }

    /// The marks that change the direction text is laid out in (U+202A–E
    /// embeddings and overrides, U+2066–9 isolates, LRM, RLM, ALM): from a
    /// title, U+202E would show the rest of a table row backwards.
    public static func isDirectionControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Text from a file's tags or a feed for a peer that shows it (MPRIS
    /// metadata): control characters (escape sequences, OSC 52 included)
    /// and direction marks removed, line breaks and tabs made spaces.
    public static func plainText(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x2028, 0x2029: result.unicodeScalars.append(" ")
            case 0..<0x20, 0x7F..<0xA0: continue
            default:
                if !isDirectionControl(scalar) { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    /// Replaces line breaks, tabs and other control characters with spaces, so
    /// that text from a feed can never break a table row or move the cursor;
    /// direction marks are shown as `\u{202E}` (visible, and inert).
    public static func singleLine(_ text: String) -> String {
        var result = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            if isDirectionControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                lastWasSpace = false
                continue
            }
            let isControl = scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029
            if isControl || scalar == " " {
                if !lastWasSpace { result.unicodeScalars.append(" ") }
                lastWasSpace = true
            } else {
                result.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        return result.trimmingSpaces()
    }
}

extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        return String(scalars)
    }
}

extension DisplayWidth {
    /// `text` broken into lines of at most `width` columns, at spaces where
    /// it can be (a word longer than a line is cut). With `maxLines`, the
    /// last line kept ends in "…" when text was left out.
    public static func wrap(_ text: String, width: Int, maxLines: Int? = nil) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        func flush() {
            lines.append(line)
            line = ""
            lineWidth = 0
        }
        for word in singleLine(text).split(separator: " ") {
            var word = String(word)
            var wordWidth = of(word)
            if lineWidth > 0 && lineWidth + 1 + wordWidth > width { flush() }
            while wordWidth > width {
                // A word wider than a line: as much as fits, the rest on the next.
                var head = ""
                var used = lineWidth > 0 ? lineWidth + 1 : 0
                var rest = Substring(word)
                while let character = rest.first, used + of(character) <= width {
                    head.append(character)
                    used += of(character)
                    rest.removeFirst()
                }
                line += (lineWidth > 0 ? " " : "") + head
                flush()
                word = String(rest)
                wordWidth = of(word)
            }
            guard !word.isEmpty else { continue }
            line += (lineWidth > 0 ? " " : "") + word
            lineWidth += (lineWidth > 0 ? 1 : 0) + wordWidth
        }
        if lineWidth > 0 || lines.isEmpty { flush() }
        if let maxLines, lines.count > maxLines {
            lines = Array(lines.prefix(maxLines))
            let last = lines[maxLines - 1]
            if of(last) < width {
                lines[maxLines - 1] = last + "…"
            } else {
                // Full to the edge: make room for the "…".
                lines[maxLines - 1] = truncate(last + "…", to: width)
            }
        }
        return lines
    }
}
