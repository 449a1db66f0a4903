/// Turns whole frames (one string per screen row, each exactly the screen's
/// width, styles included) into the few bytes that change the terminal from
/// the last frame to this one: only rows that differ are rewritten.
public struct ScreenFrame: Sendable {
    private var shown: [String] = []

    public init() {}

    /// Forgets what is on screen, so the next frame is drawn in full (after a
    /// resize, a resume, or anything else that disturbed the screen).
    public mutating func invalidate() {
        shown = []
    }

    /// The output that turns the screen into `lines` (empty when nothing
    /// changed), and the rows it rewrites.
    public mutating func update(to lines: [String]) -> (output: String, rows: Set<Int>) {
        var output = ""
        var rows: Set<Int> = []
        let full = shown.count != lines.count
        if full { output += "\u{1B}[0m\u{1B}[2J" }
        for (row, line) in lines.enumerated() where full || shown[row] != line {
            output += "\u{1B}[\(row + 1);1H\(line)\u{1B}[0m"
            rows.insert(row)
        }
        shown = lines
        return (output, rows)
    }
}
