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
    /// ASS borders, shadows (`\bord`, `Outline`) and letter spacing, in script pixels.
    static let border = 64.0
    /// ASS blur (`\blur`, `\be`: the cost is per pass and per radius).
    static let blur = 64.0
    /// ASS shearing (`\fax`, `\fay`).
    static let shear = 4.0

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
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let maximumFont = fontLimit(lines)
        var format: [Substring] = []
        var changed = false
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
                case "fontsize": (maximumFont, false)
                case "scalex", "scaley": (SubtitleLimits.scalePercent, false)
                case "spacing", "outline", "shadow": (SubtitleLimits.border, true)
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
    static func event(_ text: String, maximumFont: Double) -> String {
        let bytes = Array(SubtitleLimits.cut(text, keeping: SubtitleLimits.shownTextBytes + 256).utf8)
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
            guard let (bound, signed) = limit(ofTag: name, maximumFont: maximumFont) else { continue }
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

    /// The largest font the script may ask for: twice its height (`PlayResY`,
    /// libass's 288 without one, or three quarters of a `PlayResX`).
    static func fontLimit<Lines: Sequence>(_ lines: Lines) -> Double where Lines.Element == Substring {
        var height = 288.0
        for line in lines {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            for (key, factor) in [("PlayResY:", 1.0), ("PlayResX:", 0.75)] where trimmed.hasPrefix(key) {
                if let value = Double(trimmed.dropFirst(key.count).trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 {
                    height = max(height, min(value * factor, 65_536))
                }
            }
        }
        return 2 * height
    }

    private static func limit(ofTag name: String, maximumFont: Double) -> (Double, Bool)? {
        switch name {
        case "fs": (maximumFont, false)
        case "fscx", "fscy": (SubtitleLimits.scalePercent, false)
        case "bord", "xbord", "ybord", "shad", "xshad", "yshad", "fsp": (SubtitleLimits.border, true)
        case "blur", "be": (SubtitleLimits.blur, false)
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
