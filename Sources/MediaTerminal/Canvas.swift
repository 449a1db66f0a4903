/// A screen's worth of cells to compose a frame in: text and pre-styled runs
/// (a row of a rendered picture) are put at positions, clipped to the
/// canvas, and read back as one string per row for `ScreenFrame`.
public struct Canvas: Sendable {
    public let width: Int
    public let height: Int
    private struct Cell: Sendable {
        /// What the cell prints; "" for the second column of a wide
        /// character or the rest of a run, which the first cell prints.
        var text: String
        /// SGR parameters; nil for plain text.
        var style: String?
        /// A pre-styled run that resets its attributes at its end.
        var isRun = false
    }

    private var cells: [[Cell]]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Array(repeating: Cell(text: " "), count: self.width), count: self.height)
    }

    /// Puts `text` (one line) at `column`, `row` in SGR `style` (e.g. "1;33"),
    /// cut to `maxWidth` columns and to the canvas; returns the columns used.
    @discardableResult
    public mutating func put(_ text: String, column: Int, row: Int, style: String? = nil, maxWidth: Int? = nil) -> Int {
        guard row >= 0, row < height, column >= 0, column < width else { return 0 }
        let limit = min(width - column, maxWidth ?? Int.max)
        guard limit > 0 else { return 0 }
        var x = column
        for character in text {
            // A control moves the cursor; a bidirectional override reorders
            // the rest of the row: neither reaches the terminal.
            let isControl = character.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || DisplayWidth.isDirectionControl($0) }
            let measured = DisplayWidth.of(character)
            if measured == 0 && !isControl {
                // Zero-width (a zero-width space, a joiner, a stray combining
                // mark) takes no cell of its own: a cell of its own would
                // print as nothing and shift the rest of the row left.
                if x > column, !cells[row][x - 1].isRun { cells[row][x - 1].text += String(character) }
                continue
            }
            let characterWidth = max(1, measured)
            guard x + characterWidth <= column + limit else { break }
            let shown = isControl ? " " : String(character)
            release(row, x)
            cells[row][x] = Cell(text: shown, style: style)
            if characterWidth == 2 {
                release(row, x + 1)
                cells[row][x + 1] = Cell(text: "", style: style)
            }
            x += characterWidth
        }
        return x - column
    }

    /// Puts a run that is already styled and exactly `columns` cells wide
    /// (a row of a block picture); dropped if it does not fit.
    public mutating func putRun(_ run: String, columns: Int, column: Int, row: Int) {
        guard row >= 0, row < height, column >= 0, columns > 0, column + columns <= width else { return }
        for x in column..<(column + columns) { release(row, x) }
        cells[row][column] = Cell(text: run, isRun: true)
        for x in (column + 1)..<(column + columns) { cells[row][x] = Cell(text: "", isRun: true) }
    }

    /// Fills a rectangle with spaces in `style` (a bar's background).
    public mutating func fill(row: Int, column: Int = 0, width fillWidth: Int? = nil, style: String) {
        guard row >= 0, row < height else { return }
        let end = min(width, column + (fillWidth ?? width))
        for x in max(0, column)..<max(max(0, column), end) {
            release(row, x)
            cells[row][x] = Cell(text: " ", style: style)
        }
    }

    /// Before cell `x` is written: a wide character it is half of would keep
    /// only its other half, and a run (a picture's row) it is part of would
    /// print whole or not at all, so what is left of them becomes spaces
    /// (else the row comes out short or long).
    private mutating func release(_ row: Int, _ x: Int) {
        let cell = cells[row][x]
        if cell.isRun {
            var start = x
            while start > 0, cells[row][start].text.isEmpty, cells[row][start].isRun { start -= 1 }
            cells[row][start] = Cell(text: " ")
            var next = start + 1
            while next < width, cells[row][next].isRun, cells[row][next].text.isEmpty {
                cells[row][next] = Cell(text: " ")
                next += 1
            }
            return
        }
        if cell.text.isEmpty, x > 0, !cells[row][x - 1].isRun {
            cells[row][x - 1] = Cell(text: " ", style: cells[row][x - 1].style)
        } else if !cell.text.isEmpty, x + 1 < width, cells[row][x + 1].text.isEmpty, !cells[row][x + 1].isRun {
            cells[row][x + 1] = Cell(text: " ", style: cells[row][x + 1].style)
        }
    }

    /// The rows as the terminal should print them.
    /// Attributes change only where the style does.
    public var lines: [String] {
        cells.map { row in
            var line = ""
            var current: String?
            for cell in row {
                if cell.isRun {
                    if current != nil { line += "\u{1B}[0m" }
                    current = nil
                    line += cell.text
                    continue
                }
                if cell.style != current {
                    if current != nil { line += "\u{1B}[0m" }
                    if let style = cell.style { line += "\u{1B}[\(style)m" }
                    current = cell.style
                }
                line += cell.text
            }
            if current != nil { line += "\u{1B}[0m" }
            return line
        }
    }

    /// The rows without styles: what a reader of the screen sees (tests).
    public var plainLines: [String] {
        lines.map(Self.stripStyles)
    }

    /// `text` without its escape sequences.
    public static func stripStyles(_ text: String) -> String {
        var result = ""
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { escaping = false }
                continue
            }
            if scalar == "\u{1B}" { escaping = true; continue }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
