import CFFmpeg
import Foundation
import MediaEngine
import MediaModel
import MediaTerminal

/// The terminal a player draws on: shared by every item `play` shows (the
/// screen stays while `<` and `>` move on), with its status line on the
/// bottom row. The alternate screen is entered at the first picture and
/// left by `close`, so the shell's screen comes back as it was. One thread
/// scales, draws and writes; SIGWINCH makes it fit the new size.
public final class TerminalScreen: @unchecked Sendable {
    public let mode: ImageMode
    private let output: Int32
    private let colors: Bool
    /// A size given instead of the terminal's (`--video-out` recordings,
    /// tests): columns and rows.
    private let fixedSize: (columns: Int, rows: Int)?
    private let lock = NSCondition()
    // Guarded by `lock`.
    private var pending: (frame: Frame, rotation: Int, scaler: TerminalScaler)?
    private var shown: (frame: Frame, rotation: Int, scaler: TerminalScaler)?
    private var status = ""
    /// The subtitle shown with the pending picture.
    private var subtitle: String?
    private var statusChanged = false
    private var resized = false
    private var entered = false
    private var closing = false
    private var thread: Thread?
    private var resizes: ProcessSignals.Watch?
    // The drawing thread's own.
    /// The chafa canvas, made once per area and picture size.
    private var canvas: (area: PictureArea, width: Int, height: Int, canvas: OpaquePointer)?
    /// The largest frame written so far: the next one's buffer is made that big.
    private var outputCapacity = 4096
    private let chafa: ChafaTerminal

    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[2J"
    static let leaveSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    /// `mode`: kitty, sixel or blocks (`ImageMode.detect`, as browse); `colors`
    /// false (NO_COLOR): blocks in the terminal's own two colours.
    public init(mode: ImageMode, output: Int32 = STDOUT_FILENO, colors: Bool, fixedSize: (columns: Int, rows: Int)? = nil) {
        self.mode = mode == .none ? .blocks : mode
        self.output = output
        self.colors = colors
        self.fixedSize = fixedSize
        chafa = ChafaTerminal(mode: self.mode)
        resizes = ProcessSignals.shared.watch([SIGWINCH]) { [weak self] _ in
            guard let self else { return }
            self.lock.withLock {
                self.resized = true
                self.lock.broadcast()
            }
        }
    }

    deinit {
        resizes?.cancel()
        if let canvas { ChafaTerminal.release(canvas.canvas) }
    }

    /// Whether pictures are on the screen (then the status line is drawn
    /// here, on the bottom row, not by the caller).
    public var isShowingPictures: Bool { lock.withLock { entered && !closing } }

    /// The status line, kept on the bottom row while pictures show.
    public func setStatus(_ line: String) {
        lock.withLock {
            guard line != status else { return }
            status = line
            statusChanged = true
            lock.broadcast()
        }
    }

    /// The cells and pixels a picture may take now: all but the last row
    /// and column.
    func pictureArea() -> PictureArea {
        var columns = 80, rows = 24, cellWidth = 10, cellHeight = 20
        if let fixedSize {
            (columns, rows) = fixedSize
        } else {
            var size = winsize()
            if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
                columns = Int(size.ws_col)
                rows = Int(size.ws_row)
                if size.ws_xpixel > 0 && size.ws_ypixel > 0 {
                    cellWidth = Int(size.ws_xpixel) / columns
                    cellHeight = Int(size.ws_ypixel) / rows
                }
            }
        }
        return PictureArea(mode: mode, columns: max(1, columns - 1), rows: max(1, rows - 1), cellWidth: max(1, cellWidth), cellHeight: max(1, cellHeight))
    }

    func show(_ frame: Frame, rotation: Int, scaler: TerminalScaler, subtitle: String? = nil) {
        lock.withLock {
            self.subtitle = subtitle
            if thread == nil && !closing {
                let thread = Thread { [self] in run() }
                thread.name = "mediaplay.terminal-video"
                self.thread = thread
                thread.start()
            }
            pending = (frame, rotation, scaler)
            lock.broadcast()
        }
    }

    /// Leaves the alternate screen: the terminal is as it was.
    public func close() {
        let running = lock.withLock { () -> Thread? in
            closing = true
            lock.broadcast()
            return thread
        }
        guard running != nil else { return }
        // The thread writes the leave sequence as it ends.
        lock.withLock { while thread != nil { lock.wait() } }
    }

    private func run() {
        while true {
            let work = lock.withLock { () -> (picture: (frame: Frame, rotation: Int, scaler: TerminalScaler)?, status: String?, subtitle: String?, redraw: Bool)? in
                while pending == nil && !statusChanged && !resized && !closing { lock.wait() }
                if closing { return nil }
                let picture = pending ?? (resized ? shown : nil)
                let redraw = resized
                pending = nil
                resized = false
                statusChanged = false
                if let picture { shown = picture }
                return (picture, status, subtitle, redraw)
            }
            guard let work else { break }
            // One buffer per frame, bytes from the start (a frame of blocks at
            // 160×45 is some 200 kB: no String in between to copy).
            let area = pictureArea()
            var out: [UInt8] = []
            out.reserveCapacity(outputCapacity)
            let entering = lock.withLock { () -> Bool in
                defer { entered = true }
                return !entered
            }
            if entering { out += Self.enterSequence.utf8 }
            if work.redraw { out += "\u{1B}[2J".utf8 }
            if let picture = work.picture {
                let placed = draw(picture.frame, rotation: picture.rotation, scaler: picture.scaler, in: area, into: &out)
                SubtitleRows.draw(work.subtitle, below: placed, in: area, into: &out)
            }
            // The status line, on the bottom row, cut to the width.
            out += "\u{1B}[\(area.rows + 1);1H\u{1B}[0m".utf8
            out += DisplayWidth.truncate(DisplayWidth.singleLine(work.status ?? ""), to: area.columns).utf8
            out += "\u{1B}[K".utf8
            outputCapacity = max(outputCapacity, out.count)
            TerminalOutput.write(out, to: output)
        }
        TerminalOutput.write(Self.leaveSequence, to: output)
        lock.withLock {
            thread = nil
            lock.broadcast()
        }
    }

    /// Appends the picture's escape sequences, from its top left; the rows
    /// it covers (nil: nothing drawn).
    @discardableResult
    private func draw(_ frame: Frame, rotation: Int, scaler: TerminalScaler, in area: PictureArea, into out: inout [UInt8]) -> (top: Int, rows: Int)? {
        guard let scaled = try? scaler.scale(frame, into: area, rotation: rotation) else { return nil }
        if mode == .blocks && colors {
            // Already one pixel per half cell: each cell is ▄ in the two
            // colours, written directly (chafa would resample the picture
            // eight times over per side to match symbols: a third of a core
            // at 160×45, measured in docs/PERFORMANCE.md).
            let (columns, rows) = area.cells(for: scaled)
            HalfBlocks.render(scaled, left: 1 + (area.columns - columns) / 2, top: 1 + (area.rows - rows) / 2, into: &out)
            return (1 + (area.rows - rows) / 2, rows)
        }
        if canvas == nil || canvas!.area != area || canvas!.width != scaled.width || canvas!.height != scaled.height {
            if let canvas { ChafaTerminal.release(canvas.canvas) }
            let (columns, rows) = area.cells(for: scaled)
            // Rows are written in order, the cursor moved between them: colours carry on.
            canvas = chafa.canvas(columns: columns, rows: rows, cellWidth: area.cellWidth, cellHeight: area.cellHeight, colors: colors, reuseAttributes: true)
                .map { (area, scaled.width, scaled.height, $0) }
        }
        guard let canvas = canvas?.canvas else { return nil }
        let f = scaled.frame.pointer
        guard let text = chafa.print(canvas, pixels: f.pointee.data.0!, width: scaled.width, height: scaled.height, stride: Int(f.pointee.linesize.0)) else { return nil }
        let (columns, rows) = area.cells(for: scaled)
        // Centred in the area.
        let left = 1 + (area.columns - columns) / 2
        let top = 1 + (area.rows - rows) / 2
        if mode.usesPixels {
            // kitty: earlier pictures are deleted, or the terminal keeps them all.
            if mode == .kitty { out += "\u{1B}_Ga=d\u{1B}\\".utf8 }
            out += "\u{1B}[\(top);\(left)H".utf8
            out += text.utf8
            return (top, rows)
        }
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(rows).enumerated() {
            out += "\u{1B}[\(top + index);\(left)H".utf8
            out += line.utf8
        }
        out += "\u{1B}[0m".utf8
        return (top, rows)
    }
}
