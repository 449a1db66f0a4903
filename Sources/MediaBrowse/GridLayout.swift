import MediaTerminal

/// Where each cell of the grid goes: as many columns as fit, every cell as
/// tall as the tallest content (a picture's room when any cell has a
/// picture, two title lines, an artist line when any has an artist, a
/// state line, the border). Every cell the same height makes the layout
/// arithmetic, whatever the number of cells: a search keystroke at 100,000
/// items lays nothing out; a cell's frame, its title wrapped, is made when
/// it is drawn. Pure, so tests can check it directly.
struct GridLayout {
    /// A cell is at least this wide (border included), or the grid has one column.
    static let minimumCellWidth = 24
    /// Columns between cells.
    static let gap = 1
    /// Title lines a cell has room for.
    static let titleLines = 2

    /// What a cell shows that its frame depends on.
    struct Cell {
        var title: String
        var hasPicture: Bool
        var artist: String? = nil
    }

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
    /// Whether cells keep room for a picture (some cell has one).
    let hasPictures: Bool
    /// Whether cells keep a line for an artist (some cell has one).
    let hasArtists: Bool
    let count: Int
    let cellHeight: Int
    private let cell: (Int) -> Cell

    var rowCount: Int { (count + columns - 1) / columns }
    var contentHeight: Int { rowCount * cellHeight }

    /// Every cell's frame (tests; the view asks for the cells it draws).
    var frames: [Frame] { (0..<count).map(frame) }

    /// `width`: the screen's columns; `height`: the rows the grid has on
    /// screen; `count` cells, `cell(index)` read only for the cells drawn;
    /// `pictures`, `artists`: whether any cell has one.
    init(width: Int, height: Int, count: Int, pictures: Bool, artists: Bool, cell: @escaping (Int) -> Cell) {
        let width = max(8, width)
        columns = max(1, (width + Self.gap) / (Self.minimumCellWidth + Self.gap))
        cellWidth = (width - Self.gap * (columns - 1)) / columns
        let inner = cellWidth - 2
        // A 16:9 picture in cells about twice as tall as wide, kept small
        // enough that two rows of cells fit on the screen.
        pictureRows = max(2, min(inner * 9 / 32, (height - 4) / 2 - 4))
        hasPictures = pictures
        hasArtists = artists
        self.count = count
        self.cell = cell
        cellHeight = 2 + (pictures ? pictureRows : 0) + Self.titleLines + (artists ? 1 : 0) + 1
    }

    /// The same from the cells themselves (tests, small grids).
    init(width: Int, height: Int, cells: [(title: String, hasPicture: Bool)], artists: [String?] = []) {
        let all = cells.indices.map { index in
            Cell(title: cells[index].title, hasPicture: cells[index].hasPicture, artist: index < artists.count ? artists[index] : nil)
        }
        self.init(
            width: width, height: height, count: all.count, pictures: all.contains(where: \.hasPicture),
            artists: all.contains { $0.artist?.isEmpty == false }, cell: { all[$0] }
        )
    }

    /// Cell `index`'s frame, its title wrapped.
    func frame(_ index: Int) -> Frame {
        let inner = cellWidth - 2
        let content = cell(index)
        let title = DisplayWidth.wrap(content.title.isEmpty ? "(untitled)" : content.title, width: inner, maxLines: Self.titleLines)
        let artist = content.artist.flatMap { $0.isEmpty ? nil : DisplayWidth.truncate(DisplayWidth.singleLine($0), to: inner) }
        return Frame(
            x: (index % columns) * (cellWidth + Self.gap), y: (index / columns) * cellHeight, width: cellWidth, height: cellHeight,
            titleLines: title, hasPicture: content.hasPicture, artist: hasArtists ? artist : nil
        )
    }

    func row(of index: Int) -> Int { index / columns }

    /// The scroll offset that shows all of cell `index` with the least
    /// movement from `scrollTop`.
    func scrollTop(showing index: Int, from scrollTop: Int, viewHeight: Int) -> Int {
        guard (0..<count).contains(index) else { return 0 }
        let top = row(of: index) * cellHeight
        var result = scrollTop
        if top + cellHeight > result + viewHeight { result = top + cellHeight - viewHeight }
        if top < result { result = top }
        return max(0, min(result, max(0, contentHeight - viewHeight)))
    }

    /// The cells that show at least one row between `scrollTop` and
    /// `scrollTop + viewHeight`.
    func visible(scrollTop: Int, viewHeight: Int) -> [Int] {
        guard count > 0, viewHeight > 0 else { return [] }
        let first = max(0, scrollTop) / cellHeight
        let last = min(rowCount - 1, (scrollTop + viewHeight - 1) / cellHeight)
        guard first <= last else { return [] }
        return Array((first * columns)..<min(count, (last + 1) * columns))
    }

    /// The cell at a screen position in grid coordinates, if any.
    func cell(atColumn column: Int, row y: Int) -> Int? {
        guard count > 0, y >= 0, column >= 0 else { return nil }
        let slot = column / (cellWidth + Self.gap)
        let index = (y / cellHeight) * columns + slot
        guard slot < columns, index < count, column - slot * (cellWidth + Self.gap) < cellWidth else { return nil }
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
        max(1, viewHeight / max(1, cellHeight))
    }
}
