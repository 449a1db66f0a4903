import CFFmpeg
import Foundation
import MediaTerminal
import Synchronization

/// Video in the terminal (`play --vo terminal`, and `auto` where there is no
/// window): each frame scaled by libswscale straight to the pixels the
/// terminal shows, drawn by libchafa (kitty, sixel or colour blocks) and
/// written as one buffer that starts at the top left, never a clear. The
/// last row is the status line's, the last column stays empty, so the
/// terminal never scrolls. `present` hands the newest frame over and
/// returns: a terminal that cannot keep up skips frames instead of holding
/// the clock back, as the window does.
public final class TerminalVideoSink: VideoSink, @unchecked Sendable {
    private let screen: TerminalScreen
    private let rotation: Int
    /// `--video-out` with `--vo terminal`: the scaled RGBA frames are hashed
    /// here instead of drawn, every one (see `TerminalScreen.fixedSize`).
    private let record: (any VideoSink)?
    private let scaler = TerminalScaler()
    private let lock = NSCondition()
    private var dismissed = false

    public init(screen: TerminalScreen, rotation: Int = 0, record: (any VideoSink)? = nil) {
        self.screen = screen
        self.rotation = rotation
        self.record = record
    }

    public var dropsLateFrames: Bool { record == nil }

    public func present(_ frame: Frame, info: VideoFrameInfo) throws {
        if let record {
            let area = screen.pictureArea()
            guard let scaled = try scaler.scale(frame, into: area, rotation: rotation) else { return }
            try record.present(scaled.frame, info: VideoFrameInfo(time: info.time, width: scaled.width, height: scaled.height))
            return
        }
        screen.show(frame, rotation: rotation, scaler: scaler)
    }

    /// A still picture stays on screen until dismissed (q, a stop).
    public func holdUntilDismissed() {
        guard record == nil else { return }
        lock.withLock { while !dismissed { lock.wait() } }
    }

    public func dismiss() {
        lock.withLock {
            dismissed = true
            lock.broadcast()
        }
    }

    public func close() throws {
        try record?.close()
    }
}

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
    private var statusChanged = false
    private var resized = false
    private var entered = false
    private var closing = false
    private var thread: Thread?
    private let resizes: DispatchSourceSignal
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
        signal(SIGWINCH, SIG_IGN)
        resizes = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resizes.setEventHandler { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                self.resized = true
                self.lock.broadcast()
            }
        }
        resizes.resume()
    }

    deinit {
        resizes.cancel()
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

    func show(_ frame: Frame, rotation: Int, scaler: TerminalScaler) {
        lock.withLock {
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
            let work = lock.withLock { () -> (picture: (frame: Frame, rotation: Int, scaler: TerminalScaler)?, status: String?, redraw: Bool)? in
                while pending == nil && !statusChanged && !resized && !closing { lock.wait() }
                if closing { return nil }
                let picture = pending ?? (resized ? shown : nil)
                let redraw = resized
                pending = nil
                resized = false
                statusChanged = false
                if let picture { shown = picture }
                return (picture, status, redraw)
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
            if let picture = work.picture { draw(picture.frame, rotation: picture.rotation, scaler: picture.scaler, in: area, into: &out) }
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

    /// Appends the picture's escape sequences, from its top left.
    private func draw(_ frame: Frame, rotation: Int, scaler: TerminalScaler, in area: PictureArea, into out: inout [UInt8]) {
        guard let scaled = try? scaler.scale(frame, into: area, rotation: rotation) else { return }
        if mode == .blocks && colors {
            // Already one pixel per half cell: each cell is ▄ in the two
            // colours, written directly (chafa would resample the picture
            // eight times over per side to match symbols: a third of a core
            // at 160×45, measured in docs/PERFORMANCE.md).
            let (columns, rows) = area.cells(for: scaled)
            return HalfBlocks.render(scaled, left: 1 + (area.columns - columns) / 2, top: 1 + (area.rows - rows) / 2, into: &out)
        }
        if canvas == nil || canvas!.area != area || canvas!.width != scaled.width || canvas!.height != scaled.height {
            if let canvas { ChafaTerminal.release(canvas.canvas) }
            let (columns, rows) = area.cells(for: scaled)
            // Rows are written in order, the cursor moved between them: colours carry on.
            canvas = chafa.canvas(columns: columns, rows: rows, cellWidth: area.cellWidth, cellHeight: area.cellHeight, colors: colors, reuseAttributes: true)
                .map { (area, scaled.width, scaled.height, $0) }
        }
        guard let canvas = canvas?.canvas else { return }
        let f = scaled.frame.pointer
        guard let text = chafa.print(canvas, pixels: f.pointee.data.0!, width: scaled.width, height: scaled.height, stride: Int(f.pointee.linesize.0)) else { return }
        let (columns, rows) = area.cells(for: scaled)
        // Centred in the area.
        let left = 1 + (area.columns - columns) / 2
        let top = 1 + (area.rows - rows) / 2
        if mode.usesPixels {
            // kitty: earlier pictures are deleted, or the terminal keeps them all.
            if mode == .kitty { out += "\u{1B}_Ga=d\u{1B}\\".utf8 }
            out += "\u{1B}[\(top);\(left)H".utf8
            out += text.utf8
            return
        }
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(rows).enumerated() {
            out += "\u{1B}[\(top + index);\(left)H".utf8
            out += line.utf8
        }
        out += "\u{1B}[0m".utf8
    }
}

/// Where a picture goes: cells (all but the last row and column) and a cell's
/// size in pixels.
struct PictureArea: Equatable {
    var mode: ImageMode
    var columns: Int
    var rows: Int
    var cellWidth: Int
    var cellHeight: Int

    /// The area in pixels: a cell's pixels for kitty and sixel; for blocks,
    /// one pixel per half cell (a half block shows exactly one).
    var pixels: (width: Int, height: Int) {
        mode.usesPixels ? (columns * cellWidth, rows * cellHeight) : (columns, rows * 2)
    }

    /// How far a pixel is from square: blocks' half cells are as wide as
    /// half a cell is tall only approximately (cells are about 1:2).
    var pixelAspect: Double {
        mode.usesPixels ? 1 : Double(cellWidth) / (Double(cellHeight) / 2)
    }

    /// A `width`×`height` picture (display aspect) fitted in the area, aspect
    /// kept: its size in pixels, each side at least 1 and even for blocks.
    func fit(width: Int, height: Int) -> (width: Int, height: Int) {
        let (areaWidth, areaHeight) = pixels
        guard width > 0, height > 0 else { return (areaWidth, areaHeight) }
        // In pixels of this area: a pixel is `pixelAspect` wide for 1 tall.
        let aspect = Double(width) / Double(height) / pixelAspect
        var fittedWidth = areaWidth
        var fittedHeight = Int((Double(areaWidth) / aspect).rounded())
        if fittedHeight > areaHeight {
            fittedHeight = areaHeight
            fittedWidth = Int((Double(areaHeight) * aspect).rounded())
        }
        fittedWidth = max(1, min(fittedWidth, areaWidth))
        fittedHeight = max(1, min(fittedHeight, areaHeight))
        if !mode.usesPixels { fittedHeight = max(2, fittedHeight & ~1) }
        return (fittedWidth, fittedHeight)
    }

    /// The cells a scaled picture covers.
    func cells(for picture: ScaledPicture) -> (columns: Int, rows: Int) {
        if mode.usesPixels {
            return (min(columns, (picture.width + cellWidth - 1) / cellWidth), min(rows, (picture.height + cellHeight - 1) / cellHeight))
        }
        return (picture.width, picture.height / 2)
    }
}

/// A frame scaled for the terminal: RGBA, `width`×`height`.
struct ScaledPicture {
    let frame: Frame
    let width: Int
    let height: Int
}

/// Scales decoded frames to RGBA at a terminal's picture size in one
/// libswscale pass (bilinear; the same as `ffmpeg -vf
/// scale=W:H:flags=bilinear,format=rgba`), then turns it upright by the
/// stream's rotation. One per sink; used by one thread at a time.
final class TerminalScaler: @unchecked Sendable {
    private var context: OpaquePointer?
    private let lock = NSLock()

    deinit { sws_freeContext(context) }

    func scale(_ original: Frame, into area: PictureArea, rotation requested: Int) throws -> ScaledPicture? {
        try lock.withLock {
            // Upright before scaling where the format allows, as ffmpeg's
            // autorotation does (then the scaled frame is ffmpeg's); else the
            // scaled picture is turned.
            var frame = original
            var rotation = requested
            if rotation != 0, let upright = try Self.upright(original, rotation: rotation) {
                frame = upright
                rotation = 0
            }
            let f = frame.pointer
            let turned = rotation == 90 || rotation == 270
            // The picture as shown: a quarter turn swaps its sides.
            var displayWidth = Int(f.pointee.width), displayHeight = Int(f.pointee.height)
            let sar = f.pointee.sample_aspect_ratio
            if sar.num > 0 && sar.den > 0 { displayWidth = Int((Double(displayWidth) * Double(sar.num) / Double(sar.den)).rounded()) }
            if turned { swap(&displayWidth, &displayHeight) }
            let fitted = area.fit(width: displayWidth, height: displayHeight)
            // Scaled before it is turned: to the fitted size with sides swapped back.
            let (width, height) = turned ? (fitted.height, fitted.width) : (fitted.width, fitted.height)
            context = sws_getCachedContext(
                context, f.pointee.width, f.pointee.height, AVPixelFormat(f.pointee.format),
                Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(SWS_BILINEAR), nil, nil, nil
            )
            guard let context else { return nil }
            let scaled = try Self.rgbaFrame(width: width, height: height)
            let s = scaled.pointer
            let sourcePlanes: [UnsafePointer<UInt8>?] = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2, f.pointee.data.3].map { $0.map { UnsafePointer($0) } }
            let sourceStrides: [Int32] = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, f.pointee.linesize.3]
            var planes: [UnsafeMutablePointer<UInt8>?] = [s.pointee.data.0, nil, nil, nil]
            var strides: [Int32] = [s.pointee.linesize.0, 0, 0, 0]
            guard sws_scale(context, sourcePlanes, sourceStrides, 0, f.pointee.height, &planes, &strides) > 0 else { return nil }
            guard rotation != 0 else { return ScaledPicture(frame: scaled, width: width, height: height) }
            return try Self.turn(scaled, width: width, height: height, by: rotation)
        }
    }

    /// The decoded picture turned clockwise by `rotation` (ffmpeg's
    /// `transpose=clock`, `hflip,vflip` or `transpose=cclock`), for planar
    /// 8-bit formats whose chroma is subsampled alike both ways; nil for others.
    static func upright(_ frame: Frame, rotation: Int) throws -> Frame? {
        let f = frame.pointer
        let format = AVPixelFormat(f.pointee.format)
        let chromaShift: Int
        switch format {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: chromaShift = 1
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: chromaShift = 0
        default: return nil
        }
        let width = Int(f.pointee.width), height = Int(f.pointee.height)
        let quarter = rotation == 90 || rotation == 270
        let out = Frame()
        let o = out.pointer
        o.pointee.format = f.pointee.format
        o.pointee.width = Int32(quarter ? height : width)
        o.pointee.height = Int32(quarter ? width : height)
        o.pointee.color_range = f.pointee.color_range
        o.pointee.colorspace = f.pointee.colorspace
        let sar = f.pointee.sample_aspect_ratio
        o.pointee.sample_aspect_ratio = quarter ? AVRational(num: sar.den, den: sar.num) : sar
        try check(av_frame_get_buffer(o, 0), "terminal picture")
        let sources = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2]
        let sourceStrides = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2].map(Int.init)
        let targets = [o.pointee.data.0, o.pointee.data.1, o.pointee.data.2]
        let targetStrides = [o.pointee.linesize.0, o.pointee.linesize.1, o.pointee.linesize.2].map(Int.init)
        for plane in 0..<3 {
            guard let source = sources[plane], let target = targets[plane] else { return nil }
            let shift = plane == 0 ? 0 : chromaShift
            let planeWidth = (width + (1 << shift) - 1) >> shift, planeHeight = (height + (1 << shift) - 1) >> shift
            let (inStride, outStride) = (sourceStrides[plane], targetStrides[plane])
            for y in 0..<planeHeight {
                let row = source + y * inStride
                for x in 0..<planeWidth {
                    switch rotation {
                    case 90: target[x * outStride + (planeHeight - 1 - y)] = row[x]
                    case 270: target[(planeWidth - 1 - x) * outStride + y] = row[x]
                    default: target[(planeHeight - 1 - y) * outStride + (planeWidth - 1 - x)] = row[x]
                    }
                }
            }
        }
        return out
    }

    /// A new RGBA frame with its buffer.
    private static func rgbaFrame(width: Int, height: Int) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.format = AV_PIX_FMT_RGBA.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        try check(av_frame_get_buffer(frame.pointer, 0), "terminal picture")
        return frame
    }

    /// The RGBA picture turned clockwise by 90, 180 or 270 degrees.
    private static func turn(_ picture: Frame, width: Int, height: Int, by rotation: Int) throws -> ScaledPicture {
        let turned = rotation == 90 || rotation == 270
        let (outWidth, outHeight) = turned ? (height, width) : (width, height)
        let out = try rgbaFrame(width: outWidth, height: outHeight)
        let o = out.pointer
        let inStride = Int(picture.pointer.pointee.linesize.0), outStride = Int(o.pointee.linesize.0)
        let source = UnsafeRawPointer(picture.pointer.pointee.data.0!).assumingMemoryBound(to: UInt32.self)
        let target = UnsafeMutableRawPointer(o.pointee.data.0!).assumingMemoryBound(to: UInt32.self)
        for y in 0..<height {
            for x in 0..<width {
                let (tx, ty): (Int, Int)
                switch rotation {
                case 90: (tx, ty) = (height - 1 - y, x)
                case 180: (tx, ty) = (width - 1 - x, height - 1 - y)
                default: (tx, ty) = (y, width - 1 - x)
                }
                target[ty * outStride / 4 + tx] = source[y * inStride / 4 + x]
            }
        }
        return ScaledPicture(frame: out, width: outWidth, height: outHeight)
    }
}

/// Colour half blocks from an RGBA picture of one pixel per half cell: the
/// upper pixel is the background, the lower the foreground of "▄", and a
/// colour is sent only when it changes along a row.
enum HalfBlocks {
    /// "0" to "255" as bytes.
    private static let decimals: [[UInt8]] = (0...255).map { Array(String($0).utf8) }
    private static let lowerHalf: [UInt8] = Array("▄".utf8)

    static func render(_ picture: ScaledPicture, left: Int, top: Int, into out: inout [UInt8]) {
        let f = picture.frame.pointer
        let stride = Int(f.pointee.linesize.0)
        let pixels = UnsafePointer(f.pointee.data.0!)
        func append(_ text: String) { out.append(contentsOf: text.utf8) }
        func color(_ introducer: UInt8, _ pixel: UnsafePointer<UInt8>) {
            out.append(contentsOf: [0x1B, UInt8(ascii: "["), introducer, UInt8(ascii: "8"), UInt8(ascii: ";"), UInt8(ascii: "2"), UInt8(ascii: ";")])
            out.append(contentsOf: decimals[Int(pixel[0])])
            out.append(UInt8(ascii: ";"))
            out.append(contentsOf: decimals[Int(pixel[1])])
            out.append(UInt8(ascii: ";"))
            out.append(contentsOf: decimals[Int(pixel[2])])
            out.append(UInt8(ascii: "m"))
        }
        for row in 0..<picture.height / 2 {
            append("\u{1B}[\(top + row);\(left)H")
            let upper = pixels + 2 * row * stride
            let lower = upper + stride
            var background: (UInt8, UInt8, UInt8)?
            var foreground: (UInt8, UInt8, UInt8)?
            for column in 0..<picture.width {
                let up = upper + 4 * column, down = lower + 4 * column
                let upperColor = (up[0], up[1], up[2]), lowerColor = (down[0], down[1], down[2])
                if background.map({ $0 != upperColor }) ?? true {
                    color(UInt8(ascii: "4"), up)
                    background = upperColor
                }
                if foreground.map({ $0 != lowerColor }) ?? true {
                    color(UInt8(ascii: "3"), down)
                    foreground = lowerColor
                }
                out.append(contentsOf: lowerHalf)
            }
        }
        append("\u{1B}[0m")
    }
}
