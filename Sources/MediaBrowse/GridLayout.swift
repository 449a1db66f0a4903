import MediaTerminal

/// Where each cell of the grid goes, for a terminal width and the cells'
/// contents: as many columns as fit, cells as tall as their content (a
/// picture, one or two title lines, an artist, a state line, the border),
/// rows as tall as their tallest cell. Pure arithmetic, so tests can check
/// it directly. Made for every feed and every search keystroke, so the
/// work per cell is a count (a title's width) and a row's height: a cell's
/// frame, its title wrapped, is made when it is drawn (at 100,000 items
/// wrapping every title took half a second).
struct GridLayout {
    /// A cell is at least this wide (border included), or the grid has one column.
    static let minimumCellWidth = 24
    /// Columns between cells.
    static let gap = 1

    struct Frame: Equatable {
        /// Column and row of the top-left corner, in grid coordinates (row 0
        /// is the top of the grid's content, not of the screen).
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var titleLines: [String]
        var hasPicture: Bool
        /// The artist, on a line under the title, when the file's tags say.
        var artist: String? = nil
    }

    let columns: Int
    let cellWidth: Int
    /// Rows a cell's picture takes.
    let pictureRows: Int
    /// The top of each row of cells, and its height.
    let rows: [(top: Int, height: Int)]
    private let cells: [(title: String, hasPicture: Bool)]
    private let artists: [String?]

    var count: Int { cells.count }
    var contentHeight: Int { rows.last.map { $0.top + $0.height } ?? 0 }

    /// Every cell's frame (tests; the view asks for the cells it draws).
    var frames: [Frame] { (0..<count).map(frame) }

    /// `width`: the screen's columns; `height`: the rows the grid has on
    /// screen; `cells`: each item's title and whether it shows a picture;
    /// `artists`: each item's artist where known (or none at all).
    init(width: Int, height: Int, cells: [(title: String, hasPicture: Bool)], artists: [String?] = []) {
        let width = max(8, width)
        columns = max(1, (width + Self.gap) / (Self.minimumCellWidth + Self.gap))
        cellWidth = (width - Self.gap * (columns - 1)) / columns
        let inner = cellWidth - 2
        // A 16:9 picture in cells about twice as tall as wide, kept small
        // enough that two rows of cells fit on the screen.
        pictureRows = max(2, min(inner * 9 / 32, (height - 4) / 2 - 4))
        self.cells = cells
        self.artists = artists
        var rows: [(top: Int, height: Int)] = []
        rows.reserveCapacity(cells.count / columns + 1)
        var top = 0
        for start in stride(from: 0, to: cells.count, by: columns) {
            var rowHeight = 0
            for index in start..<min(cells.count, start + columns) {
                rowHeight = max(rowHeight, Self.height(of: cells[index], artist: index < artists.count && artists[index]?.isEmpty == false, inner: inner, pictureRows: pictureRows))
            }
            rows.append((top, rowHeight))
            top += rowHeight
        }
        self.rows = rows
    }

    /// A cell's height: its title takes one line when it fits the cell,
    /// else two (the wrap's most).
    private static func height(of cell: (title: String, hasPicture: Bool), artist: Bool, inner: Int, pictureRows: Int) -> Int {
        let titleLines = cell.title.isEmpty || DisplayWidth.of(cell.title) <= inner ? 1 : 2
        return 2 + (cell.hasPicture ? pictureRows : 0) + titleLines + (artist ? 1 : 0) + 1
    }

    /// Cell `index`'s frame, its title wrapped.
    func frame(_ index: Int) -> Frame {
        let inner = cellWidth - 2
        let cell = cells[index]
        let title = DisplayWidth.wrap(cell.title.isEmpty ? "(untitled)" : cell.title, width: inner, maxLines: 2)
        let artist = index < artists.count ? artists[index].flatMap { $0.isEmpty ? nil : DisplayWidth.truncate(DisplayWidth.singleLine($0), to: inner) } : nil
        return Frame(
            x: (index % columns) * (cellWidth + Self.gap), y: rows[index / columns].top, width: cellWidth,
            height: 2 + (cell.hasPicture ? pictureRows : 0) + title.count + (artist == nil ? 0 : 1) + 1,
            titleLines: title, hasPicture: cell.hasPicture, artist: artist
        )
    }

    func row(of index: Int) -> Int { index / columns }

    /// The scroll offset that shows all of cell `index` with the least
    /// movement from `scrollTop`.
    func scrollTop(showing index: Int, from scrollTop: Int, viewHeight: Int) -> Int {
        guard (0..<count).contains(index) else { return 0 }
        let row = rows[self.row(of: index)]
        var top = scrollTop
        if row.top + row.height > top + viewHeight { top = row.top + row.height - viewHeight }
        if row.top < top { top = row.top }
        return max(0, min(top, max(0, contentHeight - viewHeight)))
    }

    /// The row of cells at grid row `y` (the last one that starts at or above it).
    private func rowIndex(at y: Int) -> Int {
        var low = 0, high = rows.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if rows[middle].top <= y { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The cells that show at least one row between `scrollTop` and
    /// `scrollTop + viewHeight`.
    func visible(scrollTop: Int, viewHeight: Int) -> [Int] {
        guard !rows.isEmpty, viewHeight > 0 else { return [] }
        var result: [Int] = []
        var row = rowIndex(at: max(0, scrollTop))
        while row < rows.count, rows[row].top < scrollTop + viewHeight {
            if rows[row].top + rows[row].height > scrollTop {
                let start = row * columns
                for index in start..<min(count, start + columns) where rows[row].top + frameHeight(index) > scrollTop { result.append(index) }
            }
            row += 1
        }
        return result
    }

    private func frameHeight(_ index: Int) -> Int {
        Self.height(of: cells[index], artist: index < artists.count && artists[index]?.isEmpty == false, inner: cellWidth - 2, pictureRows: pictureRows)
    }

    /// The cell at a screen position in grid coordinates, if any.
    func cell(atColumn column: Int, row y: Int) -> Int? {
        guard !rows.isEmpty, y >= 0, column >= 0 else { return nil }
        let row = rowIndex(at: y)
        let slot = column / (cellWidth + Self.gap)
        let index = row * columns + slot
        guard slot < columns, index < count, column - slot * (cellWidth + Self.gap) < cellWidth, y < rows[row].top + frameHeight(index) else { return nil }
        return index
    }

    /// The cell a move lands on: up and down keep the column, clamped to
    /// the items there are.
    func move(_ index: Int, by step: Move) -> Int {
        guard count > 0 else { return 0 }
        let last = count - 1
        switch step {
        case .left: return max(0, index - 1)
        case .right: return min(last, index + 1)
        case .up: return index >= columns ? index - columns : index
        case .down:
            if index + columns <= last { return index + columns }
            // The last row is short: go to its last cell, if it is below.
            return row(of: last) > row(of: index) ? last : index
        case let .rows(count):
            return max(0, min(last, index + count * columns))
        case .first: return 0
        case .last: return last
        }
    }

    enum Move: Equatable {
        case left, right, up, down, first, last
        /// Whole rows down (positive) or up.
        case rows(Int)
    }

    /// How many rows of cells a page moves.
    func rowsPerPage(viewHeight: Int) -> Int {
        let tallest = rows.map(\.height).max() ?? 1
        return max(1, viewHeight / max(1, tallest))
    }
}
