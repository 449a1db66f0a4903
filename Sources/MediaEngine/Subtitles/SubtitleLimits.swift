import Foundation

/// How much of a subtitle track a player takes: a subtitle file may come
/// from a remote feed, and libass's cost grows with a cue's length, with how
/// many show at once and with its sizes. A film's track is far inside these
/// (a few thousand cues of a line or two, a few at a time).
public enum SubtitleLimits {
    /// A subtitle file of its own (a sidecar, `--sub-file`, a feed's link):
    /// FFmpeg's text demuxers read the whole file when it opens.
    public static let fileBytes: Int64 = 32 << 20
    /// The packets of one track, read (the item's own file's track too).
    public static let trackBytes = 32 << 20
    /// The cues of one track.
    public static let trackCues = 250_000
    /// Cues showing at any one time; later ones that would add to them are left out.
    public static let cuesAtOnce = 256
    /// A cue's text, in UTF-8 bytes: the rest is cut and "…" shows it was.
    public static let shownTextBytes = 4096
    /// ASS scales (`\fscx`, `ScaleX`), in percent.
    static let scalePercent = 400.0
    /// ASS shearing (`\fax`, `\fay`).
    static let shear = 4.0
    /// ASS `\be`: passes of a blur over the picture.
    static let edgeBlurPasses = 32.0
    /// Lines of one cue (`\N`): past them the text is cut.
    static let lines = 64
    /// An ASS event in all: its tags and drawings with its text.
    static let eventBytes = 64 << 10
    /// How far `\fs+N` may grow a font within one event.
    static let relativeGrowth = 2.0

    /// `text` cut to `shownTextBytes` at a character's edge, "…" added when cut.
    public static func cut(_ text: String) -> String {
        cut(text, keeping: shownTextBytes)
    }

    static func cut(_ text: String, keeping bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        let scalars = text.unicodeScalars
        var end = scalars.startIndex
        var used = 0
        while end < scalars.endIndex {
            let width = UTF8.width(scalars[end])
            guard used + width <= bytes else { break }
            used += width
            end = scalars.index(after: end)
        }
        return String(scalars[..<end]) + "…"
    }
}

/// Why a track is not shown: past one of `SubtitleLimits`.
struct SubtitleLimitError: Error {
    let reason: String
}

/// Counts what a track's reader has taken, and how many of its cues show at
/// once: cues come in order of start (FFmpeg's text demuxers sort them), so
/// the ends of those still showing are a heap, each cue pushed and popped once.
struct SubtitleBudget {
    private(set) var cues = 0
    private(set) var bytes = 0
    /// The ends of the cues taken that may still show, a min-heap.
    private var ends: [Double] = []

    /// Counts a packet's bytes; throws past the track's limit.
    mutating func read(bytes count: Int) throws(SubtitleLimitError) {
        bytes += max(0, count)
        if bytes > SubtitleLimits.trackBytes {
            throw SubtitleLimitError(reason: "its track holds more than \(SubtitleLimits.trackBytes >> 20) MiB of subtitles")
        }
    }

    /// Whether a cue from `start` to `end` is taken: not while
    /// `cuesAtOnce` others show. Throws past the track's cue limit.
    mutating func take(start: Double, end: Double) throws(SubtitleLimitError) -> Bool {
        while let first = ends.first, first <= start { popFirst() }
        guard ends.count < SubtitleLimits.cuesAtOnce else { return false }
        cues += 1
        if cues > SubtitleLimits.trackCues {
            throw SubtitleLimitError(reason: "its track has more than \(SubtitleLimits.trackCues) cues")
        }
        // An open cue (no end) shows until the next one starts.
        push(end > start ? end : start.nextUp)
        return true
    }

    private mutating func push(_ value: Double) {
        ends.append(value)
        var child = ends.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard ends[child] < ends[parent] else { break }
            ends.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popFirst() {
        ends.swapAt(0, ends.count - 1)
        ends.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < ends.count, ends[left] < ends[smallest] { smallest = left }
            if right < ends.count, ends[right] < ends[smallest] { smallest = right }
            guard smallest != parent else { return }
            ends.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// ASS as libass is given it, with every size whose cost grows with its
/// value held to a bound: font size, scale, border, shadow, spacing, blur
/// and shear, in the header's styles and in events' override tags.
/// Values inside the bounds are passed unchanged, byte for byte.
enum AssBounds {
    /// libass's own style format, for a styles section without a `Format:` line.
    static let defaultStyleFormat = [
        "name", "fontname", "fontsize", "primarycolour", "secondarycolour", "outlinecolour", "backcolour", "bold", "italic",
        "underline", "strikeout", "scalex", "scaley", "spacing", "angle", "borderstyle", "outline", "shadow", "alignment",
        "marginl", "marginr", "marginv", "encoding",
    ]

    /// The lines of a header as libass splits them: at `\n` and at `\r`
    /// alone or before `\n` (a Swift `Character` holds "\r\n" as one),
    /// a byte order mark at a line's start skipped.
    static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }.map { line in
            line.hasPrefix("\u{FEFF}") ? line.dropFirst() : line
        }
    }

    /// The header (`[Script Info]`, `[V4+ Styles]`) with its styles' sizes
    /// bounded, and without events: FFmpeg's ASS reader leaves a
    /// `Dialogue:` line its own parser refuses in the header, where libass
    /// would read it as a cue past every bound.
    static func header(_ text: String) -> String {
        var changed = false
        // A script claiming a tiny picture (`PlayResY: 2`) has libass scale
        // every size, its default style's too, by the frame over it: its
        // sides are held to a least size first.
        let lines = lines(text).compactMap { line -> Substring? in
            if line.hasPrefix("Dialogue:") {
                changed = true
                return nil
            }
            for (key, least) in [("PlayResX:", ScriptSize.leastWidth), ("PlayResY:", ScriptSize.leastHeight)] where line.hasPrefix(key) {
                let value = ScriptSize.leadingInteger(line.dropFirst(key.count))
                if value > 0 && value < least {
                    changed = true
                    return Substring("\(key) \(least)")
                }
            }
            return line
        }
        let size = ScriptSize(lines)
        var format: [String] = defaultStyleFormat
        let out = lines.map { line -> Substring in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") { format = defaultStyleFormat }
            if trimmed.hasPrefix("Format:") {
                format = trimmed.dropFirst("Format:".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                return line
            }
            guard trimmed.hasPrefix("Style:") else { return line }
            var fields = trimmed.dropFirst("Style:".count).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            var touched = false
            for (index, name) in format.enumerated() where index < fields.count {
                let limit: (Double, Bool)? = switch name {
                case "fontsize": (size.font, false)
                case "scalex", "scaley": (SubtitleLimits.scalePercent, false)
                case "outline", "shadow": (size.border, true)
                case "spacing": (size.spacing, true)
                default: nil
                }
                // As libass reads a number (strtod): what leads the field.
                guard let (bound, signed) = limit, let value = leadingNumber(Array(fields[index].utf8)[...]).value else { continue }
                let clamped = bounded(value, bound, signed: signed)
                if clamped != value {
                    fields[index] = number(clamped)
                    touched = true
                }
            }
            guard touched else { return line }
            changed = true
            return Substring("Style:" + fields.joined(separator: ","))
        }
        return changed ? out.joined(separator: "\n") : text
    }

    /// An event as libavcodec hands it to libass: at most `shownTextBytes`
    /// of text shown and `lines` lines (tags and drawings may take up to
    /// `eventBytes` in all), its override tags' sizes bounded, tags read as
    /// libass reads them (spaces skipped, signs and exponents taken).
    static func event(_ text: String, size: ScriptSize) -> String {
        String(decoding: event(bytes: Array(text.utf8), size: size), as: UTF8.self)
    }

    /// The same on the decoder's bytes as they are (a legacy encoding kept).
    static func event(bytes input: [UInt8], size: ScriptSize) -> [UInt8] {
        let bytes = input.prefix(SubtitleLimits.eventBytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        // The fields before the text (ReadOrder, Layer, Style, Name, the
        // margins, Effect) are copied as they are: not shown text.
        var fields = 0
        while index < bytes.count, fields < 8 {
            if bytes[index] == UInt8(ascii: ",") { fields += 1 }
            out.append(bytes[index])
            index += 1
        }
        var inTags = false
        var shown = 0, breaks = 0
        // After `\p1` the text is a drawing's commands, not glyphs: not counted as text.
        var drawing = false
        // `\fs+N` multiplies the size by 1 + N/10: the product in this event.
        var growth = 1.0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while index < bytes.count {
            let byte = bytes[index]
            if !inTags {
                if byte == UInt8(ascii: "{") {
                    inTags = true
                } else if byte == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] | 0x20 == UInt8(ascii: "n") {
                    breaks += 1
                } else if byte & 0xC0 != 0x80, !drawing {
                    shown += 1
                }
                // Past the text's bounds: cut, at a character's start.
                if (shown > SubtitleLimits.shownTextBytes || breaks >= SubtitleLimits.lines) && byte & 0xC0 != 0x80 {
                    out += Array("…".utf8)
                    break
                }
                out.append(byte)
                index += 1
                continue
            }
            if byte == UInt8(ascii: "}") { inTags = false }
            out.append(byte)
            index += 1
            guard byte == UInt8(ascii: "\\") else { continue }
            while index < bytes.count, isSpace(bytes[index]) {
                out.append(bytes[index])
                index += 1
            }
            // The tag's name: its letters.
            let nameStart = index
            while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"), (bytes[index] | 0x20) <= UInt8(ascii: "z") { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            out += bytes[nameStart..<index]
            if name == "p" {
                let (scale, _) = leadingNumber(bytes[index...])
                drawing = (scale ?? 0) != 0
            }
            guard var (bound, signed) = limit(ofTag: name, size: size) else { continue }
            while index < bytes.count, isSpace(bytes[index]) {
                out.append(bytes[index])
                index += 1
            }
            let (value, length) = leadingNumber(bytes[index...])
            // (A tag whose number does not read is libass's reset to the style.)
            guard let value else { continue }
            let written = bytes[index..<(index + length)]
            index += length
            if name == "fs", let sign = written.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                // Relative: kept relative, its growth over the event held to 2×.
                guard sign == UInt8(ascii: "+") else {
                    out += written
                    continue
                }
                bound = max(0, (SubtitleLimits.relativeGrowth / growth - 1) * 10)
                let clamped = bounded(value, bound, signed: false)
                growth *= 1 + clamped / 10
                out += clamped == value ? Array(written) : Array(("+" + number(clamped)).utf8)
                continue
            }
            if name == "fs" {
                // An absolute size: growth counts from it.
                signed = false
                growth = 1
            }
            let clamped = bounded(value, bound, signed: signed)
            out += clamped == value ? Array(written) : Array(number(clamped).utf8)
        }
        return out
    }

    /// The number at the start of `bytes` as C's strtod reads it (sign,
    /// digits, a point, an exponent), and how many bytes it took.
    static func leadingNumber(_ bytes: ArraySlice<UInt8>) -> (value: Double?, length: Int) {
        var end = bytes.startIndex
        func digits() -> Bool {
            let start = end
            while end < bytes.endIndex, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
            return end > start
        }
        while end < bytes.endIndex, bytes[end] == 0x20 || bytes[end] == 0x09 { end += 1 }
        if end < bytes.endIndex, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") { end += 1 }
        var any = digits()
        if end < bytes.endIndex, bytes[end] == UInt8(ascii: ".") {
            end += 1
            any = digits() || any
        }
        guard any else { return (nil, 0) }
        if end < bytes.endIndex, bytes[end] | 0x20 == UInt8(ascii: "e") {
            let mark = end
            end += 1
            if end < bytes.endIndex, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") { end += 1 }
            if !digits() { end = mark }
        }
        let text = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return (Double(text.hasPrefix("+") ? String(text.dropFirst()) : text), end - bytes.startIndex)
    }

    private static func limit(ofTag name: String, size: ScriptSize) -> (Double, Bool)? {
        switch name {
        case "fs": (size.font, false)
        case "fscx", "fscy": (SubtitleLimits.scalePercent, false)
        case "bord", "xbord", "ybord", "shad", "xshad", "yshad": (size.border, true)
        case "fsp": (size.spacing, true)
        case "blur": (size.blur, false)
        case "be": (SubtitleLimits.edgeBlurPasses, false)
        case "fax", "fay": (SubtitleLimits.shear, true)
        default: nil
        }
    }

    private static func bounded(_ value: Double, _ bound: Double, signed: Bool) -> Double {
        guard value.isFinite else { return bound }
        return min(max(value, signed ? -bound : 0), bound)
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A script's height as libass reads it (`PlayResY`, else from `PlayResX`,
/// else 288), and the sizes bounded by it: libass scales every size in a
/// script by the picture's height over this, so a script 2 high draws a
/// font of 30 at 120 times that. Bounds in the script's own units hold
/// whatever it claims.
struct ScriptSize {
    let height: Double
    /// The least sides a script may claim (a quarter of libass's default).
    static let leastWidth = 96, leastHeight = 72

    init<Lines: Sequence>(_ lines: Lines) where Lines.Element == Substring {
        var width = 0, height = 0
        for line in lines {
            if line.hasPrefix("PlayResX:") { width = Self.leadingInteger(line.dropFirst(9)) }
            if line.hasPrefix("PlayResY:") { height = Self.leadingInteger(line.dropFirst(9)) }
        }
        // libass's own completion of a missing side.
        if width <= 0 && height <= 0 {
            height = 288
        } else if height <= 0 {
            height = width == 1280 ? 1024 : width * 3 / 4
        }
        self.height = Double(max(height, 1))
    }

    /// A font up to twice the script's height.
    var font: Double { 2 * height }
    /// Borders and shadows up to an eighth of it.
    var border: Double { height / 8 }
    /// Letter spacing up to a quarter of it.
    var spacing: Double { height / 4 }
    /// Blur up to a thirty-second of it (its cost grows with the radius).
    var blur: Double { height / 32 }

    /// The number a line starts with, as C's atoi reads it (libass's reading).
    static func leadingInteger(_ text: Substring) -> Int {
        var rest = text.drop { $0 == " " || $0 == "\t" }
        var sign = 1
        if let first = rest.first, first == "-" || first == "+" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        var value = 0
        for character in rest {
            guard let digit = character.wholeNumberValue, character.isASCII else { break }
            value = min(value * 10 + digit, 1 << 20)
        }
        return sign * value
    }
}
