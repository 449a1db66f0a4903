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
    /// The header (`[Script Info]`, `[V4+ Styles]`) with its styles' sizes bounded.
    static func header(_ text: String) -> String {
        var changed = false
        // A script claiming a tiny picture (`PlayResY: 2`) has libass scale
        // every size, its default style's too, by the frame over it: its
        // sides are held to a least size first.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
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
        var format: [Substring] = []
        let out = lines.map { line -> Substring in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("Format:") {
                format = trimmed.dropFirst("Format:".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces)[...] }
                return line
            }
            guard trimmed.hasPrefix("Style:"), !format.isEmpty else { return line }
            var fields = trimmed.dropFirst("Style:".count).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            var touched = false
            for (index, name) in format.enumerated() where index < fields.count {
                let limit: (Double, Bool)? = switch name.lowercased() {
                case "fontsize": (size.font, false)
                case "scalex", "scaley": (SubtitleLimits.scalePercent, false)
                case "outline", "shadow": (size.border, true)
                case "spacing": (size.spacing, true)
                default: nil
                }
                guard let (bound, signed) = limit, let value = Double(fields[index].trimmingCharacters(in: .whitespaces)) else { continue }
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

    /// An event as libavcodec hands it to libass, its text cut to
    /// `shownTextBytes` and its override tags' sizes bounded.
    static func event(_ text: String, size: ScriptSize) -> String {
        var bytes = Array(SubtitleLimits.cut(text, keeping: SubtitleLimits.shownTextBytes + 256).utf8)
        // At most `lines` lines: each is laid out and drawn on its own.
        var breaks = 0
        for index in bytes.indices.dropLast() where bytes[index] == UInt8(ascii: "\\") && (bytes[index + 1] | 0x20) == UInt8(ascii: "n") {
            breaks += 1
            if breaks == SubtitleLimits.lines {
                bytes = Array(bytes[..<index]) + Array("…".utf8)
                break
            }
        }
        guard bytes.contains(UInt8(ascii: "{")) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        var inTags = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "{") { inTags = true }
            if byte == UInt8(ascii: "}") { inTags = false }
            guard inTags, byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            out.append(byte)
            index += 1
            // The tag's name: its letters.
            let nameStart = index
            while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"), (bytes[index] | 0x20) <= UInt8(ascii: "z") { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            out += bytes[nameStart..<index]
            guard let (bound, signed) = limit(ofTag: name, size: size) else { continue }
            // `\fs+N` multiplies the size: read as `\fsN`.
            if name == "fs", index < bytes.count, bytes[index] == UInt8(ascii: "+") { index += 1 }
            let numberStart = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            while index < bytes.count, bytes[index] == UInt8(ascii: ".") || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")) { index += 1 }
            let written = bytes[numberStart..<index]
            guard let value = Double(String(decoding: written, as: UTF8.self)) else {
                out += written
                continue
            }
            let clamped = name == "fs" && value < 0 ? 0 : bounded(value, bound, signed: signed)
            out += clamped == value ? Array(written) : Array(number(clamped).utf8)
        }
        return String(decoding: out, as: UTF8.self)
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
