import Foundation

/// A block of lines at the bottom of a terminal, redrawn in place: the
/// progress display of long work. Each frame is one write, lines are cut to
/// the width (so they never wrap and break the cursor arithmetic).
public final class LiveRegion {
    private let output: Int32
    private let width: Int?
    private var drawnLines = 0
    private var lastFrame: [String] = []

    /// `output` is a descriptor: standard error unless told.
    public init(output: Int32 = STDERR_FILENO, width: Int?) {
        self.output = output
        self.width = width
    }

    /// Replaces the region's lines with `lines`. Unchanged frames write nothing.
    public func draw(_ lines: [String]) {
        guard lines != lastFrame else { return }
        var frame = ""
        if drawnLines > 0 { frame += "\r\u{1B}[\(drawnLines)A" }
        for line in lines {
            let cut = width.map { DisplayWidth.truncate(line, to: max(1, $0 - 1)) } ?? line
            frame += "\r\u{1B}[2K" + cut + "\n"
        }
        // Clear lines left over from a taller previous frame.
        if lines.count < drawnLines {
            for _ in lines.count..<drawnLines { frame += "\u{1B}[2K\n" }
            frame += "\u{1B}[\(drawnLines - lines.count)A"
        }
        StandardStream.write(Array(frame.utf8), to: output)
        drawnLines = lines.count
        lastFrame = lines
    }
}

/// Braille spinner frames, one per redraw.
public enum Spinner {
    public static let frames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    public static func frame(_ tick: Int) -> String {
        frames[((tick % frames.count) + frames.count) % frames.count]
    }
}

/// "12.3 MiB/s"
public func formatRate(_ bytesPerSecond: Double) -> String {
    formatByteCount(Int64(bytesPerSecond.rounded())) + "/s"
}

/// "1:05:03", "3:20" or "0:07"
public func formatDuration(_ seconds: Double) -> String {
    // Clamped first: a file's garbage duration (2^63 µs, NaN) must not trap.
    let total = Int((seconds.isNaN ? 0 : min(max(seconds, 0), 1e12)).rounded(.down))
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
    let ss = s < 10 ? "0\(s)" : "\(s)"
    if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
    return "\(m):\(ss)"
}
