import Foundation

/// A subtitle file as FFmpeg's text demuxers read it: what real files hold
/// and FFmpeg 5's demuxers miss is mended into a copy, which is read in its
/// place (the original is never changed). UTF-16 and UTF-32 (with a byte
/// order mark or without) become UTF-8; a WebVTT file's REGION, STYLE and
/// NOTE blocks (with which FFmpeg reads no cue at all) and its header lines
/// are left out, its cues and their settings kept; SubRip without cue
/// numbers, or with its times written loosely (`1:02,5`, a dot for the
/// comma, no spaces around the arrow), is written numbered, as FFmpeg reads.
enum SubtitleFileText {
    /// The path to read for `path`: itself, or a mended copy.
    static func prepared(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count <= SubtitleLimits.fileBytes else { return path }
        var bytes = [UInt8](data)
        var changed = false
        if let text = utf8(fromWide: bytes) {
            bytes = text
            changed = true
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var mended: String?
        if text.hasPrefix("WEBVTT") {
            mended = webVTT(text)
        } else if text.contains("-->") {
            mended = subRip(text)
        }
        if let mended {
            bytes = Array(mended.utf8)
            changed = true
        }
        guard changed, let copy = try? write(bytes, for: path) else { return path }
        return copy
    }

    // MARK: - Encodings

    /// UTF-16 or UTF-32 as UTF-8 (told by a byte order mark, or by the zero
    /// bytes of a first ASCII character); nil for anything else.
    static func utf8(fromWide bytes: [UInt8]) -> [UInt8]? {
        let head = Array(bytes.prefix(4)) + [UInt8](repeating: 0xAA, count: max(0, 4 - bytes.count))
        var size = 0, little = true, start = 0
        if head == [0xFF, 0xFE, 0, 0] { (size, little, start) = (4, true, 4) }
        else if head == [0, 0, 0xFE, 0xFF] { (size, little, start) = (4, false, 4) }
        else if head[0] == 0xFF, head[1] == 0xFE { (size, little, start) = (2, true, 2) }
        else if head[0] == 0xFE, head[1] == 0xFF { (size, little, start) = (2, false, 2) }
        else if head[0] != 0, head[0] < 0x80, head[1] == 0, head[2] == 0, head[3] == 0 { (size, little) = (4, true) }
        else if head[0] == 0, head[1] == 0, head[2] == 0, head[3] != 0, head[3] < 0x80 { (size, little) = (4, false) }
        else if head[0] != 0, head[0] < 0x80, head[1] == 0, head[2] != 0, head[3] == 0 { (size, little) = (2, true) }
        else if head[0] == 0, head[1] != 0, head[1] < 0x80, head[2] == 0, head[3] != 0 { (size, little) = (2, false) }
        else { return nil }
        let count = (bytes.count - start) / size
        func unit(_ index: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<size {
                let base = start + index * size
                value = value << 8 | UInt32(bytes[little ? base + size - 1 - offset : base + offset])
            }
            return value
        }
        let text = size == 2
            ? String(decoding: (0..<count).lazy.map { UInt16(truncatingIfNeeded: unit($0)) }, as: UTF16.self)
            : String(decoding: (0..<count).lazy.map(unit), as: UTF32.self)
        return Array(text.utf8)
    }

    // MARK: - WebVTT

    /// Only the cues (an id line, the timing line with its settings, the
    /// text), after `WEBVTT`; nil when there is nothing to leave out.
    static func webVTT(_ text: String) -> String? {
        let blocks = text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty }
        guard let header = blocks.first else { return nil }
        var cues: [String] = []
        var leftOut = header.contains("\n")
        for block in blocks.dropFirst() {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            // A cue's timing is its first line, or its second after an id.
            if lines.prefix(2).contains(where: { $0.contains("-->") }) {
                cues.append(block)
            } else {
                leftOut = true
            }
        }
        guard leftOut else { return nil }
        return "WEBVTT\n\n" + cues.joined(separator: "\n\n") + "\n"
    }

    // MARK: - SubRip

    /// Numbered cues with times as FFmpeg reads them; nil when the file is
    /// already so (or is no SubRip).
    static func subRip(_ text: String) -> String? {
        var cues: [(timing: String, text: [Substring])] = []
        var loose = false
        for block in text.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            guard let at = lines.firstIndex(where: { $0.contains("-->") }), let timing = timing(lines[at].trimmingCharacters(in: .whitespaces)) else { continue }
            // Numbered: the number alone on the line before the times.
            let numbered = at == 1 && lines[0].trimmingCharacters(in: .whitespaces).allSatisfy(\.isNumber)
            if !numbered || timing.loose { loose = true }
            cues.append(("\(timing.start) --> \(timing.end)", Array(lines[(at + 1)...])))
        }
        guard loose, !cues.isEmpty else { return nil }
        var out = ""
        for (index, cue) in cues.enumerated() {
            out += "\(index + 1)\n\(cue.timing)\n\(cue.text.joined(separator: "\n"))\n\n"
        }
        return out
    }

    /// "0:0:1,5 --> 0:00:02.75" as "00:00:01,005 --> 00:00:02,075" (the
    /// fraction's digits are milliseconds, as FFmpeg reads them), and
    /// whether it was written otherwise.
    static func timing(_ line: String) -> (start: String, end: String, loose: Bool)? {
        guard let arrow = line.range(of: "-->") else { return nil }
        let left = line[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
        let right = line[arrow.upperBound...].trimmingCharacters(in: .whitespaces)
        let rightTime = right.prefix { !$0.isWhitespace }
        let settings = right.dropFirst(rightTime.count)
        guard let start = time(left), let end = time(String(rightTime)) else { return nil }
        let canonical = "\(start) --> \(end)\(settings)"
        return (start, end + settings, canonical != line)
    }

    /// "1:02,5", "00:01:02.500", "01:02,500" → "00:01:02,005"-style, or nil.
    static func time(_ text: String) -> String? {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == "." })
        guard (1...2).contains(parts.count) else { return nil }
        let clock = parts[0].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(clock.count), clock.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let (hours, minutes, seconds) = clock.count == 3 ? (clock[0]!, clock[1]!, clock[2]!) : (0, clock[0]!, clock[1]!)
        guard minutes < 60, seconds < 60, hours < 1000 else { return nil }
        var milliseconds = 0
        if parts.count == 2 {
            guard parts[1].count <= 3, let value = Int(parts[1]) else { return nil }
            milliseconds = value
        }
        func pad(_ value: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)),\(pad(milliseconds, 3))"
    }

    // MARK: - The copy

    /// A private folder of this process's mended copies, removed at exit.
    private static let folder: String? = {
        var template = Array((NSTemporaryDirectory() + "/mediaplay-subtitles-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let path = String(cString: made)
        SubtitleCopies.folder = path
        atexit { SubtitleCopies.remove() }
        return path
    }()

    private static func write(_ bytes: [UInt8], for path: String) throws -> String {
        guard let folder else { throw CocoaError(.fileWriteUnknown) }
        let name = (path as NSString).lastPathComponent
        let copy = folder + "/\(SubtitleCopies.next())-" + name
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        return copy
    }
}

/// The mended copies' folder, for the exit handler (which captures nothing).
private enum SubtitleCopies {
    nonisolated(unsafe) static var folder: String?
    private static let lock = NSLock()
    nonisolated(unsafe) private static var count = 0

    static func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }

    static func remove() {
        guard let folder else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
