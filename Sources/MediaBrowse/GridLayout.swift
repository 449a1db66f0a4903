import MediaTerminal

/// Where each cell of the grid goes, for a terminal width and the cells'
/// contents: as many columns as fit, cells as tall as their content (a
/// picture, one or two title lines, a state line, the border), rows as tall
/// as their tallest cell. Pure arithmetic, so tests can check it directly.
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
    let frames: [Frame]
    /// The top of each row of cells, and its height.
    let rows: [(top: Int, height: Int)]

    var contentHeight: Int { rows.last.map { $0.top + $0.height } ?? 0 }

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
        var frames: [Frame] = []
        var rows: [(top: Int, height: Int)] = []
        var top = 0
        for start in stride(from: 0, to: cells.count, by: columns) {
            var rowHeight = 0
            for (offset, cell) in cells[start..<min(cells.count, start + columns)].enumerated() {
                let title = DisplayWidth.wrap(cell.title.isEmpty ? "(untitled)" : cell.title, width: inner, maxLines: 2)
                let index = start + offset
                let artist = index < artists.count ? artists[index].flatMap { $0.isEmpty ? nil : DisplayWidth.truncate(DisplayWidth.singleLine($0), to: inner) } : nil
                let cellHeight = 2 + (cell.hasPicture ? pictureRows : 0) + title.count + (artist == nil ? 0 : 1) + 1
                frames.append(Frame(
                    x: offset * (cellWidth + Self.gap), y: top, width: cellWidth, height: cellHeight,
                    titleLines: title, hasPicture: cell.hasPicture, artist: artist
                ))
                rowHeight = max(rowHeight, cellHeight)
            }
            rows.append((top, rowHeight))
            top += rowHeight
        }
        self.frames = frames
        self.rows = rows
    }

    func row(of index: Int) -> Int { index / columns }

    /// The scroll offset that shows all of cell `index` with the least
    /// movement from `scrollTop`.
    func scrollTop(showing index: Int, from scrollTop: Int, viewHeight: Int) -> Int {
        guard frames.indices.contains(index) else { return 0 }
        let row = rows[self.row(of: index)]
        var top = scrollTop
        if row.top + row.height > top + viewHeight { top = row.top + row.height - viewHeight }
        if row.top < top { top = row.top }
        return max(0, min(top, max(0, contentHeight - viewHeight)))
    }

    /// The cells that show at least one row between `scrollTop` and
    /// `scrollTop + viewHeight`.
    func visible(scrollTop: Int, viewHeight: Int) -> [Int] {
        frames.indices.filter { frames[$0].y < scrollTop + viewHeight && frames[$0].y + frames[$0].height > scrollTop }
    }

    /// The cell at a screen position in grid coordinates, if any.
    func cell(atColumn column: Int, row: Int) -> Int? {
        frames.indices.first { frame in
            let f = frames[frame]
            return column >= f.x && column < f.x + f.width && row >= f.y && row < f.y + f.height
        }
    }

    /// The cell a move lands on: up and down keep the column, clamped to
    /// the items there are.
    func move(_ index: Int, by step: Move) -> Int {
        guard !frames.isEmpty else { return 0 }
        let last = frames.count - 1
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
