import MediaModel
import MediaFeed
import MediaTerminal

/// What a cell says about its item.
enum CellState: Equatable {
    case invalid(String)
    /// Words only, no media (a facts-feed row without an image).
    case textOnly
    case missing(String)
    case notDownloaded(resumeAt: Double)
    case cached(resumeAt: Double)
    case local(resumeAt: Double)
    case downloading(Double?)
    case playing(Double, Double?)
    case paused(Double, Double?)
    /// Paused by itself until enough is downloaded: position, buffer fill.
    case buffering(Double, Double?)
    case ended(Double?)
    case failed(String)

    /// Whether it moves on its own (a spinner needs redraws).
    var isAnimated: Bool {
        switch self {
        case .downloading, .buffering: return true
        default: return false
        }
    }

    var failure: String? {
        switch self {
        case let .invalid(reason), let .missing(reason), let .failed(reason): return reason
        default: return nil
        }
    }
}

/// A cell's picture area.
enum PictureCell: Equatable {
    case image(TerminalImage)
    case loading(Double?)
    case unavailable
    case none
    /// A one-line notice where the picture is (over the thumbnail, if any):
    /// a video the background player plays elsewhere.
    indirect case notice(String, over: PictureCell)
    /// A playing video's picture with the subtitle showing on the rows under it.
    indirect case subtitled([String], over: PictureCell)
}

/// A picture drawn with pixels (kitty, sixel) over the text grid.
struct GraphicsPlacement: Equatable {
    var row: Int
    var column: Int
    var rows: Int
    var graphics: String
}

/// Everything a frame shows: the view is a function of it.
struct BrowseSnapshot {
    typealias Mode = BrowseState.Mode

    var columns: Int
    var rows: Int
    var title: String
    var items: ShownItems
    var layout: GridLayout
    /// Each item's state, asked only for the cells drawn.
    var state: (_ index: Int) -> CellState
    var selection: Int
    var scrollTop: Int
    var mode: Mode
    var detailScroll: Int
    var helpScroll = 0
    /// The query line while typing (`/bjork▏  12 of 5,000`), or the kept
    /// filter's (`12 of 5,000 "bjork"`); nil when the grid shows everything.
    var search: String?
    var message: String?
    /// An item's duration, tags and format, once probed (detail view).
    var details: (Int) -> MediaDetails? = { _ in nil }
    /// An item's mark: ✓ played, • new, or nil.
    var mark: (Int) -> String? = { _ in nil }
    /// The chapter playing in an item (`2/3 Part Two`), or nil.
    var chapter: (Int) -> String? = { _ in nil }
    /// The feed shown is the kept copy: its server could not be reached.
    var offline = false
    var backendName: String
    var colors: Bool
    var tick: Int
    var picture: (_ index: Int, _ columns: Int, _ rows: Int) -> PictureCell
}

/// Draws the grid, the detail view and the help into a canvas.
enum BrowseView {
    /// Rows above and below the grid: the header and the status bar.
    static let chromeRows = 2

    static func render(_ snapshot: BrowseSnapshot) -> (canvas: Canvas, graphics: [GraphicsPlacement]) {
        var canvas = Canvas(width: snapshot.columns, height: snapshot.rows)
        var graphics: [GraphicsPlacement] = []
        switch snapshot.mode {
        case .grid, .help, .search:
            drawGrid(snapshot, into: &canvas, graphics: &graphics)
            if snapshot.mode == .help {
                graphics = []
                drawHelp(snapshot, into: &canvas)
            }
        case .detail:
            drawDetail(snapshot, into: &canvas, graphics: &graphics)
        }
        return (canvas, graphics)
    }

    // MARK: - Styles

    struct Styles {
        let colors: Bool
        var bar: String { colors ? "1;37;44" : "7" }
        var title: String { "1" }
        var selectedBorder: String? { colors ? "1;36" : "1" }
        var border: String? { colors ? "2" : nil }
        var dim: String? { colors ? "2" : nil }
        var failure: String? { colors ? "31" : nil }
        func state(_ state: CellState) -> String? {
            guard colors else { return nil }
            switch state {
            case .playing: return "1;32"
            case .paused: return "33"
            case .downloading, .buffering: return "33"
            case .cached, .local: return "32"
            case .notDownloaded, .ended, .textOnly: return "2"
            case .invalid, .missing, .failed: return "31"
            }
        }
        func kind(_ kind: MediaKind?) -> String? {
            guard colors else { return nil }
            switch kind {
            case .image?: return "35"
            case .audio?: return "32"
            case .video?: return "34"
            case nil: return "31"
            }
        }
    }

    static func stateText(_ state: CellState, tick: Int) -> String {
        func clock(_ position: Double, _ duration: Double?) -> String {
            formatDuration(position) + (duration.map { " / " + formatDuration($0) } ?? "")
        }
        func resume(_ position: Double) -> String { position > 0 ? " · at \(formatDuration(position))" : "" }
        switch state {
        case .invalid: return "✗ invalid"
        case .missing: return "✗ missing"
        case .textOnly: return "text only"
        case let .notDownloaded(position): return "○ not downloaded" + resume(position)
        case let .cached(position): return "● cached" + resume(position)
        case let .local(position): return "● local" + resume(position)
        case let .downloading(fraction):
            return Spinner.frame(tick) + (fraction.map { " \(Percent.text($0))" } ?? " downloading")
        case let .playing(position, duration): return "▶ " + clock(position, duration)
        case let .paused(position, duration): return "⏸ " + clock(position, duration)
        case let .buffering(position, fill):
            return Spinner.frame(tick) + " " + formatDuration(position) + " buffering" + (fill.map { " \(Percent.text($0))" } ?? "")
        case let .ended(duration): return "■ ended" + (duration.map { " " + formatDuration($0) } ?? "")
        case .failed: return "✗ failed"
        }
    }

    // MARK: - Chrome

    private static func drawHeader(_ text: String, right: String, snapshot: BrowseSnapshot, into canvas: inout Canvas) {
        let styles = Styles(colors: snapshot.colors)
        canvas.fill(row: 0, style: styles.bar)
        let rightWidth = DisplayWidth.of(right)
        let room = snapshot.columns - rightWidth - 3
        canvas.put(" " + DisplayWidth.truncate(DisplayWidth.singleLine(text), to: max(1, room)), column: 0, row: 0, style: styles.bar)
        if room > 4 { canvas.put(right, column: snapshot.columns - rightWidth - 1, row: 0, style: styles.bar) }
    }

    private static func drawStatusBar(_ text: String, isFailure: Bool, snapshot: BrowseSnapshot, into canvas: inout Canvas) {
        let styles = Styles(colors: snapshot.colors)
        let row = snapshot.rows - 1
        let style = isFailure ? styles.failure : styles.dim
        canvas.put(" " + DisplayWidth.truncate(DisplayWidth.singleLine(text), to: max(1, snapshot.columns - 2)), column: 0, row: row, style: style)
    }

    static let gridHints = "←↑↓→ move · space play/pause · / search · i details · ? help · q quit"
    static let detailHints = "space play/pause · ↑↓ scroll · ←→ previous/next · q back"

    /// The status bar: a message, else the selected item's failure, else hints.
    private static func statusText(_ snapshot: BrowseSnapshot, hints: String) -> (String, Bool) {
        if let message = snapshot.message { return (message, false) }
        if snapshot.mode == .search, let search = snapshot.search { return (search + "   Enter keep · Esc clear", false) }
        if snapshot.items.indices.contains(snapshot.selection), let failure = snapshot.state(snapshot.selection).failure {
            let item = snapshot.items[snapshot.selection]
            return ("✗ \(item.position) \"\(item.title)\": \(failure)", true)
        }
        let filter = snapshot.search.map { $0 + " · esc all · " } ?? ""
        return ((snapshot.offline ? "offline (r retries) · " : "") + filter + hints, false)
    }

    // MARK: - Grid

    private static func drawGrid(_ snapshot: BrowseSnapshot, into canvas: inout Canvas, graphics: inout [GraphicsPlacement]) {
        let count = snapshot.items.count
        let position = count == 0 ? (snapshot.search == nil ? "no items" : "no match") : "\(snapshot.selection + 1)/\(count)"
        drawHeader(snapshot.title, right: position, snapshot: snapshot, into: &canvas)
        let viewHeight = snapshot.rows - chromeRows
        if count == 0 {
            canvas.put(snapshot.search == nil ? "The feed has no items." : "No item matches.", column: 2, row: 2)
        }
        for index in snapshot.layout.visible(scrollTop: snapshot.scrollTop, viewHeight: viewHeight) {
            drawCell(index, snapshot: snapshot, viewHeight: viewHeight, into: &canvas, graphics: &graphics)
        }
        let (text, isFailure) = statusText(snapshot, hints: gridHints)
        drawStatusBar(text, isFailure: isFailure, snapshot: snapshot, into: &canvas)
    }

    private static func drawCell(
        _ index: Int, snapshot: BrowseSnapshot, viewHeight: Int, into canvas: inout Canvas, graphics: inout [GraphicsPlacement]
    ) {
        let styles = Styles(colors: snapshot.colors)
        let frame = snapshot.layout.frame(index)
        let item = snapshot.items[index]
        let state = snapshot.state(index)
        let selected = index == snapshot.selection
        let top = frame.y - snapshot.scrollTop + 1
        let inner = frame.width - 2
        // Rows outside the grid's area are clipped (the header and status bar stay).
        func visible(_ row: Int) -> Bool { row >= 1 && row <= viewHeight }
        func put(_ text: String, _ column: Int, _ row: Int, _ style: String?, _ width: Int? = nil) {
            if visible(row) { canvas.put(text, column: column, row: row, style: style, maxWidth: width) }
        }

        let (h, v, tl, tr, bl, br) = selected ? ("━", "┃", "┏", "┓", "┗", "┛") : ("─", "│", "╭", "╮", "╰", "╯")
        let borderStyle = selected ? styles.selectedBorder : styles.border
        let badge = " \(item.position) · \(item.kind?.name ?? "invalid") "
        put(tl + String(repeating: h, count: inner) + tr, frame.x, top, borderStyle)
        put(badge, frame.x + 2, top, styles.kind(item.kind), inner - 2)
        put(bl + String(repeating: h, count: inner) + br, frame.x, top + frame.height - 1, borderStyle)
        for row in 1..<(frame.height - 1) {
            put(v, frame.x, top + row, borderStyle)
            put(v, frame.x + frame.width - 1, top + row, borderStyle)
        }

        var row = top + 1
        // Every cell keeps the picture's room when any has one (one height for all).
        if snapshot.layout.hasPictures {
            let rows = snapshot.layout.pictureRows
            if frame.hasPicture {
                let allVisible = (top + 1...top + rows).allSatisfy(visible)
                drawPicture(
                    snapshot.picture(index, inner, rows), column: frame.x + 1, row: row, columns: inner, rows: rows,
                    styles: styles, tick: snapshot.tick, canPlaceGraphics: allVisible, visible: visible,
                    into: &canvas, graphics: &graphics
                )
            }
            row += rows
        }
        for line in frame.titleLines {
            put(line, frame.x + 1, row, selected ? styles.title : nil, inner)
            row += 1
        }
        if let artist = frame.artist {
            put(artist, frame.x + 1, row, styles.dim, inner)
            row += 1
        }
        // The state on the cell's last line, level across a row.
        put((snapshot.mark(index).map { $0 + " " } ?? "") + stateText(state, tick: snapshot.tick), frame.x + 1, top + frame.height - 2, styles.state(state), inner)
    }

    private static func drawPicture(
        _ picture: PictureCell, column: Int, row: Int, columns: Int, rows: Int, styles: Styles, tick: Int,
        canPlaceGraphics: Bool, visible: (Int) -> Bool, into canvas: inout Canvas, graphics: inout [GraphicsPlacement]
    ) {
        func centered(_ text: String, _ style: String?) {
            let width = DisplayWidth.of(text)
            let line = row + (rows - 1) / 2
            if visible(line) { canvas.put(text, column: column + max(0, (columns - width) / 2), row: line, style: style, maxWidth: columns) }
        }
        switch picture {
        case let .image(image):
            let left = column + max(0, (columns - image.columns) / 2)
            let first = row + max(0, (rows - image.rows) / 2)
            if let sequence = image.graphics {
                if canPlaceGraphics { graphics.append(GraphicsPlacement(row: first, column: left, rows: image.rows, graphics: sequence)) }
            } else {
                for (offset, line) in image.lines.enumerated() where visible(first + offset) {
                    canvas.putRun(line, columns: image.columns, column: left, row: first + offset)
                }
            }
        case let .loading(fraction):
            centered(Spinner.frame(tick) + (fraction.map { " \(Percent.text($0))" } ?? ""), styles.dim)
        case .unavailable:
            centered("no picture", styles.dim)
        case .none:
            break
        case let .subtitled(lines, under):
            drawPicture(
                under, column: column, row: row, columns: columns, rows: max(1, rows - lines.count), styles: styles, tick: tick,
                canPlaceGraphics: canPlaceGraphics, visible: visible, into: &canvas, graphics: &graphics
            )
            for (offset, text) in lines.enumerated() {
                let line = row + rows - lines.count + offset
                if visible(line) { canvas.put(text, column: column + max(0, (columns - DisplayWidth.of(text)) / 2), row: line, style: nil, maxWidth: columns) }
            }
        case let .notice(text, under):
            // The picture a row shorter, the notice on the row below it.
            drawPicture(
                under, column: column, row: row, columns: columns, rows: max(1, rows - 1), styles: styles, tick: tick,
                canPlaceGraphics: canPlaceGraphics, visible: visible, into: &canvas, graphics: &graphics
            )
            let line = row + rows - 1
            let shown = DisplayWidth.truncate(text, to: columns)
            if visible(line) { canvas.put(shown, column: column + max(0, (columns - DisplayWidth.of(shown)) / 2), row: line, style: styles.dim, maxWidth: columns) }
        }
    }

    // MARK: - Detail

    /// Landscape: picture left, text right, 30:70. Portrait or narrow: the
    /// picture as a banner above the text.
    static func detailPanes(columns: Int, rows: Int) -> (landscape: Bool, picture: (column: Int, row: Int, columns: Int, rows: Int), text: (column: Int, row: Int, columns: Int, rows: Int)) {
        let bodyRows = rows - chromeRows
        if columns > rows * 2 && columns >= 60 {
            let pictureColumns = columns * 30 / 100
            let textColumn = pictureColumns + 2
            return (true, (1, 1, pictureColumns - 1, bodyRows), (textColumn, 1, columns - textColumn - 1, bodyRows))
        }
        let bannerRows = max(3, bodyRows * 40 / 100)
        return (false, (1, 1, columns - 2, bannerRows), (1, 1 + bannerRows + 1, columns - 2, max(1, bodyRows - bannerRows - 1)))
    }

    /// The detail view's text, wrapped to `width`.
    static func detailText(_ item: FeedItem, state: CellState, details: MediaDetails? = nil, mark: String? = nil, chapter: String? = nil, width: Int, tick: Int) -> [String] {
        var lines: [String] = []
        lines.append("\(item.kind?.name ?? "invalid record") · item \(item.position) · \(mark.map { $0 + " " } ?? "")\(stateText(state, tick: tick))")
        if let published = item.published { lines.append("published " + DayText.text(published)) }
        if let chapter { lines += DisplayWidth.wrap("chapter " + DisplayWidth.singleLine(chapter), width: width) }
        if let details, let line = details.line { lines += DisplayWidth.wrap(line, width: width) }
        if let failure = state.failure { lines += DisplayWidth.wrap("✗ " + failure, width: width) }
        lines.append("")
        let description = item.description.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        if description.isEmpty {
            lines.append("(no description)")
        } else {
            for paragraph in description.split(separator: "\n", omittingEmptySubsequences: false) {
                lines += DisplayWidth.wrap(String(paragraph), width: width)
            }
        }
        lines.append("")
        // The chapters playback uses: the feed's (a podcast's), else the file's.
        let chapters = item.chapters.isEmpty ? details?.chapters ?? [] : item.chapters
        if !chapters.isEmpty {
            lines.append("Chapters:")
            for (number, entry) in chapters.enumerated() {
                lines.append(DisplayWidth.truncate("  \(number + 1). \(StatusText.clock(entry.start))  \(DisplayWidth.singleLine(entry.title))", to: width))
            }
            lines.append("")
        }
        if let source = item.source { lines += DisplayWidth.wrap("Source: \(source.description.redactingUserinfo)", width: width) }
        lines += DisplayWidth.wrap("Id: \(item.id.redactingUserinfo)", width: width)
        return lines
    }

    private static func drawDetail(_ snapshot: BrowseSnapshot, into canvas: inout Canvas, graphics: inout [GraphicsPlacement]) {
        let styles = Styles(colors: snapshot.colors)
        guard snapshot.items.indices.contains(snapshot.selection) else { return }
        let index = snapshot.selection
        let item = snapshot.items[index]
        let state = snapshot.state(index)
        drawHeader(item.title, right: "\(index + 1)/\(snapshot.items.count)", snapshot: snapshot, into: &canvas)
        let panes = detailPanes(columns: snapshot.columns, rows: snapshot.rows)
        let picture = snapshot.picture(index, panes.picture.columns, panes.picture.rows)
        if picture == .none {
            let icon = item.kind == .audio ? "♪" : item.kind == .video ? "▶" : "?"
            let line = panes.picture.row + panes.picture.rows / 2
            canvas.put(icon, column: panes.picture.column + panes.picture.columns / 2, row: line, style: styles.kind(item.kind))
        } else {
            drawPicture(
                picture, column: panes.picture.column, row: panes.picture.row, columns: panes.picture.columns,
                rows: panes.picture.rows, styles: styles, tick: snapshot.tick, canPlaceGraphics: true,
                visible: { $0 >= 1 && $0 < snapshot.rows - 1 }, into: &canvas, graphics: &graphics
            )
        }
        let text = detailText(item, state: state, details: snapshot.details(index), mark: snapshot.mark(index), chapter: snapshot.chapter(index), width: max(1, panes.text.columns), tick: snapshot.tick)
        let scroll = max(0, min(snapshot.detailScroll, text.count - panes.text.rows))
        for (offset, line) in text.dropFirst(scroll).prefix(panes.text.rows).enumerated() {
            let style: String? = offset == 0 && scroll == 0 ? styles.state(state) : nil
            canvas.put(line, column: panes.text.column, row: panes.text.row + offset, style: style, maxWidth: panes.text.columns)
        }
        if text.count > panes.text.rows {
            let more = scroll + panes.text.rows < text.count ? "↓ more" : "↑"
            canvas.put(more, column: snapshot.columns - DisplayWidth.of(more) - 1, row: snapshot.rows - 2, style: styles.dim)
        }
        let (status, isFailure) = statusText(snapshot, hints: detailHints)
        drawStatusBar(status, isFailure: isFailure, snapshot: snapshot, into: &canvas)
    }

    // MARK: - Help

    static let helpLines = [
        "Keys",
        "",
        "←↑↓→ or h j k l   move between cells",
        "PgUp PgDn          a screen up or down",
        "Home End           first or last item",
        "Enter or Space     play, pause or resume",
        "                   (an image opens its details)",
        "9 0 m              volume down, up, mute",
        "[ ] Backspace      slower, faster, speed 1×",
        "< >                previous, next item",
        "b f                seek back, forward 10 s",
        "t G                sleep timer, loudness mode",
        "i                  details of the item",
        "/                  search: the grid narrows as you type",
        "                   (Enter keeps it, Esc shows all)",
        "n N                next, previous match",
        "r                  re-read the feed",
        "q or Esc           quit (details: back)",
        "Ctrl-Z             suspend; fg resumes",
        "mouse click        select a cell",
        "",
    ]

    /// The help's lines, its closing lines included (browse's state scrolls them).
    static var helpLineCount: Int { helpLines.count + 3 }

    private static func drawHelp(_ snapshot: BrowseSnapshot, into canvas: inout Canvas) {
        let styles = Styles(colors: snapshot.colors)
        let helpLines = helpLines + ["Playback: \(snapshot.backendName).", "", "↑↓ scroll · any other key closes"]
        let width = min(snapshot.columns - 2, (helpLines.map(DisplayWidth.of).max() ?? 0) + 4)
        let height = min(snapshot.rows - 2, helpLines.count + 2)
        guard width >= 3, height >= 3 else { return }
        let left = max(0, (snapshot.columns - width) / 2)
        let top = max(1, (snapshot.rows - height) / 2)
        // On a small terminal the lines scroll; ▲ ▼ on the border say there are more.
        let visible = height - 2
        let first = max(0, min(snapshot.helpScroll, helpLines.count - visible))
        for row in 0..<height {
            canvas.put(String(repeating: " ", count: width), column: left, row: top + row)
        }
        let more = { (shown: Bool, mark: String) in shown ? mark : "─" }
        canvas.put("╭" + String(repeating: "─", count: width - 3) + more(first > 0, "▲") + "╮", column: left, row: top, style: styles.selectedBorder)
        canvas.put("╰" + String(repeating: "─", count: width - 3) + more(first + visible < helpLines.count, "▼") + "╯", column: left, row: top + height - 1, style: styles.selectedBorder)
        for row in 1..<(height - 1) {
            canvas.put("│", column: left, row: top + row, style: styles.selectedBorder)
            canvas.put("│", column: left + width - 1, row: top + row, style: styles.selectedBorder)
            let line = first + row - 1
            if line < helpLines.count {
                canvas.put(helpLines[line], column: left + 2, row: top + row, style: line == 0 ? styles.title : nil, maxWidth: width - 4)
            }
        }
    }
}
