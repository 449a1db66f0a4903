import CFFmpeg
import CSDL2
import Foundation
import MediaInterfaces
import MediaModel
import MediaTerminal
import Synchronization

/// Shows pictures in an SDL window: scaled to fit with the aspect kept, never
/// larger than the screen, turned upright by the stream's rotation. One
/// thread owns SDL's video and events (SDL wants them on the thread that
/// initialised video); `present` hands it the newest frame and returns, so a
/// slow display skips frames instead of holding the clock back.
///
/// On a GPU renderer the picture goes up as a YUV texture and the GPU
/// scales it; on SDL's software renderer libswscale converts and scales in
/// one pass, straight to the window's size, which costs a fraction of SDL's
/// own YUV conversion followed by a scaled blit.
public final class SDLVideoSink: VideoSink, @unchecked Sendable {
    private let title: String
    private let rotation: Int
    private let lock = NSCondition()
    // Guarded by `lock`.
    private var pending: (frame: Frame, info: VideoFrameInfo)?
    private var ending = false
    private var dismissed = false
    private var finished = false
    private var inputHandler: (@Sendable (VideoWindowInput) -> Void)?
    private var openedSize: (width: Int32, height: Int32)?
    /// A message to show after the title (nil: the title alone), for the
    /// SDL thread to set; `titleChanged` until it has.
    private var titleMessage: String?
    private var titleChanged = false
    /// The SDL thread sleeps in SDL_WaitEvent on drivers that can wake it
    /// (X11, Wayland); on others (dummy, offscreen) SDL would poll, so it
    /// sleeps on `lock` instead. Set once, before `init` returns.
    private var waitsInSDL = false
    /// The SDL event type that wakes the SDL thread: one for the process
    /// (SDL has a few thousand to give out, and every window can share it).
    private static let wakeEvent = SDL_RegisterEvents(1)

    public var dropsLateFrames: Bool { true }

    /// Why no window can open here, or nil. Without a display server SDL
    /// falls back to its invisible "offscreen" driver (after printing
    /// Wayland's complaints): this says "no display" instead.
    public static var displayProblem: String? {
        let environment = ProcessInfo.processInfo.environment
        guard environment["SDL_VIDEODRIVER"] == nil, environment["DISPLAY"] == nil, environment["WAYLAND_DISPLAY"] == nil else { return nil }
        return "neither DISPLAY nor WAYLAND_DISPLAY is set"
    }

    /// Fails when there is no display to open a window on.
    public init(title: String, rotation: Int = 0) throws {
        // A window's title is on screen (and in task bars): no URL's password.
        self.title = title.redactingUserinfo
        self.rotation = rotation
        if let problem = Self.displayProblem { throw OutputDeviceError(.display, "no display", message: problem) }
        let requested = ProcessInfo.processInfo.environment["SDL_VIDEODRIVER"].map { $0.lowercased() }
        let started = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        let waits = Mutex(false)
        let thread = Thread { [self] in
            if SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) != 0 {
                failure.withLock { $0 = String(cString: SDL_GetError()) }
                started.signal()
                return
            }
            let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
            if (driver == "offscreen" || driver == "dummy") && requested != driver {
                failure.withLock { $0 = "only SDL's invisible \(driver) driver is available" }
                SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
                started.signal()
                return
            }
            let waitInSDL = driver == "x11" || driver == "wayland"
            waits.withLock { $0 = waitInSDL }
            started.signal()
            runLoop(waitingInSDL: waitInSDL)
            SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
        }
        thread.name = "mediaplay.window"
        thread.start()
        started.wait()
        if let message = failure.withLock({ $0 }) {
            throw OutputDeviceError(.display, "no display", message: message)
        }
        waitsInSDL = waits.withLock { $0 }
    }

    /// The size the window opened at (screen coordinates), once it is open.
    public var windowSize: (width: Int, height: Int)? {
        lock.withLock { openedSize.map { (Int($0.width), Int($0.height)) } }
    }

    /// Blocks until the window has opened with its first picture, or has
    /// ended; false when `timeout` seconds pass first. Off the cooperative pool.
    public func waitUntilOpen(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return lock.withLock {
            while openedSize == nil && !finished {
                if !lock.wait(until: deadline) { break }
            }
            return openedSize != nil
        }
    }

    /// Where keys and window events go: the session's commands (see
    /// `PlayerFactory`); the window never drives its player itself.
    public func onInput(_ handler: @escaping @Sendable (VideoWindowInput) -> Void) {
        lock.withLock { inputHandler = handler }
    }

    public func present(_ frame: Frame, info: VideoFrameInfo) throws {
        lock.withLock {
            pending = (frame, info)
            lock.broadcast()
        }
        wake()
    }

    /// Shows `message` in the window's title after the item's (`play`'s
    /// on-screen messages: what a key changed); nil: the title alone.
    public func showInTitle(_ message: String?) {
        lock.withLock {
            titleMessage = message.map { $0.redactingUserinfo }
            titleChanged = true
            lock.broadcast()
        }
        wake()
    }

    /// The window's title now: the item's, and any message after it.
    public var currentTitle: String {
        lock.withLock { titleMessage.map { "\(title) · \($0)" } ?? title }
    }

    /// Keeps the window (a still image) open until the user closes it or
    /// `dismiss` is called.
    public func holdUntilDismissed() {
        lock.withLock {
            while !dismissed && !finished { lock.wait() }
        }
    }

    public func dismiss() {
        lock.withLock {
            dismissed = true
            lock.broadcast()
        }
        wake()
    }

    /// Closes the window and ends the SDL thread.
    public func close() throws {
        lock.withLock {
            ending = true
            lock.broadcast()
        }
        wake()
        lock.withLock {
            while !finished { lock.wait() }
        }
    }

    private func wake() {
        guard waitsInSDL else { return }
        var event = SDL_Event()
        event.type = Self.wakeEvent
        SDL_PushEvent(&event)
    }

    // MARK: - The SDL thread

    private func runLoop(waitingInSDL: Bool) {
        var window = WindowState(title: title, rotation: rotation)
        defer {
            window.destroy()
            lock.withLock {
                finished = true
                lock.broadcast()
            }
        }
        while true {
            if waitingInSDL {
                var event = SDL_Event()
                if SDL_WaitEvent(&event) != 0 { handle(event, window: &window) }
            } else {
                lock.withLock {
                    while pending == nil && !ending && !titleChanged { lock.wait() }
                }
            }
            var event = SDL_Event()
            while SDL_PollEvent(&event) != 0 { handle(event, window: &window) }
            let (next, end, newTitle) = lock.withLock { () -> ((frame: Frame, info: VideoFrameInfo)?, Bool, String?) in
                defer {
                    pending = nil
                    titleChanged = false
                }
                return (pending, ending, titleChanged ? titleMessage.map { "\(title) · \($0)" } ?? title : nil)
            }
            if end { return }
            if let newTitle { window.setTitle(newTitle) }
            if let next, window.show(next.frame) {
                let size = window.size
                lock.withLock {
                    openedSize = size
                    lock.broadcast()
                }
            }
        }
    }

    private func handle(_ event: SDL_Event, window: inout WindowState) {
        let input: VideoWindowInput?
        switch event.type {
        case SDL_QUIT.rawValue:
            input = .closed
        case SDL_WINDOWEVENT.rawValue:
            let kind = UInt32(event.window.event)
            if kind == SDL_WINDOWEVENT_CLOSE.rawValue {
                input = .closed
            } else {
                if kind == SDL_WINDOWEVENT_SIZE_CHANGED.rawValue || kind == SDL_WINDOWEVENT_EXPOSED.rawValue { window.redraw() }
                input = nil
            }
        case SDL_KEYDOWN.rawValue:
            input = windowKey(event.key.keysym).map(VideoWindowInput.key)
        case SDL_TEXTINPUT.rawValue:
            // What the key typed, with the layout and shift applied ("<" is
            // shift-comma on most layouts): the same characters as a terminal.
            let text = withUnsafeBytes(of: event.text.text) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            input = text.count == 1 && text != " " ? .key(.character(text.first!)) : nil
        default:
            input = nil
        }
        guard let input else { return }
        if input == .closed {
            lock.withLock {
                dismissed = true
                lock.broadcast()
            }
        }
        lock.withLock { inputHandler }?(input)
    }
}

/// The window, renderer and texture, owned by the SDL thread.
private struct WindowState {
    var title: String
    let rotation: Int
    var window: OpaquePointer?
    var renderer: OpaquePointer?
    var texture: OpaquePointer?
    var textureSize = (width: Int32(0), height: Int32(0), format: UInt32(0))
    var softwareRenderer = false
    var scaler: OpaquePointer?
    /// Where swscale writes before the texture is updated: libavutil's
    /// padded rows, since swscale's vector paths write past a row's end
    /// (a texture's pitch has no such room).
    var converted: Frame?
    var last: Frame?

    init(title: String, rotation: Int) {
        self.title = title
        self.rotation = rotation
    }

    /// The title now, and for a window opened later.
    mutating func setTitle(_ newTitle: String) {
        title = newTitle
        if let window { SDL_SetWindowTitle(window, newTitle) }
    }

    mutating func destroy() {
        sws_freeContext(scaler)
        scaler = nil
        converted = nil
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        if let window { SDL_DestroyWindow(window) }
        texture = nil
        renderer = nil
        window = nil
    }

    /// The picture's shape on screen: pixel aspect and rotation applied.
    private func displaySize(of frame: UnsafeMutablePointer<AVFrame>) -> (width: Int32, height: Int32) {
        var width = Double(frame.pointee.width)
        let height = Double(frame.pointee.height)
        let aspect = frame.pointee.sample_aspect_ratio
        if aspect.num > 0 && aspect.den > 0 { width *= Double(aspect.num) / Double(aspect.den) }
        // From the file: clamped, never trapped on (an aspect of 2^31:1).
        let size = (width: Int32(CheckedNumber.clamped(width, to: 1...32768)), height: Int32(CheckedNumber.clamped(height, to: 1...32768)))
        return rotation % 180 == 90 ? (size.height, size.width) : size
    }

    /// Opens the window at the picture's size, shrunk to fit the screen.
    private mutating func openWindow(for frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        var (width, height) = displaySize(of: frame)
        var bounds = SDL_Rect()
        if SDL_GetDisplayUsableBounds(0, &bounds) == 0, bounds.w > 0, bounds.h > 0 {
            let scale = min(1, Double(bounds.w) / Double(width), Double(bounds.h) / Double(height))
            width = max(1, Int32((Double(width) * scale).rounded(.down)))
            height = max(1, Int32((Double(height) * scale).rounded(.down)))
        }
        let flags = SDL_WINDOW_SHOWN.rawValue | SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        guard let window = SDL_CreateWindow(title, mp_sdl_windowpos_centered(), mp_sdl_windowpos_centered(), width, height, flags) else { return false }
        // Keys that type a character arrive as text (layout and shift applied).
        SDL_StartTextInput()
        self.window = window
        renderer = SDL_CreateRenderer(window, -1, 0)
        guard let renderer else { return false }
        var info = SDL_RendererInfo()
        SDL_GetRendererInfo(renderer, &info)
        softwareRenderer = info.flags & SDL_RENDERER_SOFTWARE.rawValue != 0
        return true
    }

    /// Shows a frame; true when this opened the window.
    mutating func show(_ frame: Frame) -> Bool {
        last = frame
        let opening = window == nil
        if opening, !openWindow(for: frame.pointer) { return false }
        render(frame.pointer)
        return opening
    }

    var size: (width: Int32, height: Int32) {
        var width: Int32 = 0
        var height: Int32 = 0
        SDL_GetWindowSize(window, &width, &height)
        return (width, height)
    }

    mutating func redraw() {
        if let last, renderer != nil { render(last.pointer) }
    }

    /// Where the picture goes in an output of that size: fitted, centred,
    /// unrotated width and height (SDL turns it about the rectangle's centre).
    private func target(for frame: UnsafeMutablePointer<AVFrame>, outputWidth: Int32, outputHeight: Int32) -> SDL_Rect {
        let shown = displaySize(of: frame)
        let scale = min(Double(outputWidth) / Double(shown.width), Double(outputHeight) / Double(shown.height))
        let width = max(1, Int32((Double(shown.width) * scale).rounded()))
        let height = max(1, Int32((Double(shown.height) * scale).rounded()))
        let (rectWidth, rectHeight) = rotation % 180 == 90 ? (height, width) : (width, height)
        return SDL_Rect(x: (outputWidth - rectWidth) / 2, y: (outputHeight - rectHeight) / 2, w: rectWidth, h: rectHeight)
    }

    private mutating func render(_ frame: UnsafeMutablePointer<AVFrame>) {
        var outputWidth: Int32 = 0
        var outputHeight: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &outputWidth, &outputHeight)
        var rect = target(for: frame, outputWidth: outputWidth, outputHeight: outputHeight)
        let format = AVPixelFormat(frame.pointee.format)
        let alpha = hasAlpha(format)
        let uploaded: Bool
        if !softwareRenderer && (format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P) {
            uploaded = uploadYUV(frame)
        } else {
            // Software renderer: convert and scale in one libswscale pass, to
            // the target size. A GPU renderer gets other formats as BGRA at
            // the picture's size, and scales them itself.
            let width = softwareRenderer ? rect.w : frame.pointee.width
            let height = softwareRenderer ? rect.h : frame.pointee.height
            uploaded = uploadConverted(frame, width: width, height: height, alpha: alpha)
        }
        guard uploaded else { return }
        // Bars only where the picture leaves room (or when it has alpha, or turns).
        if rect.w < outputWidth || rect.h < outputHeight || alpha || rotation != 0 {
            SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
            SDL_RenderClear(renderer)
        }
        if rotation == 0 {
            SDL_RenderCopy(renderer, texture, nil, &rect)
        } else {
            SDL_RenderCopyEx(renderer, texture, nil, &rect, Double(rotation), nil, SDL_FLIP_NONE)
        }
        SDL_RenderPresent(renderer)
    }

    private func hasAlpha(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }

    private mutating func ensureTexture(format: UInt32, width: Int32, height: Int32) -> Bool {
        if texture != nil && textureSize == (width, height, format) { return true }
        if let texture { SDL_DestroyTexture(texture) }
        texture = SDL_CreateTexture(renderer, format, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), width, height)
        textureSize = (width, height, format)
        // Only a picture with alpha blends; an opaque copy is far cheaper.
        if texture != nil {
            SDL_SetTextureBlendMode(texture, format == SDL_PIXELFORMAT_ARGB8888.rawValue ? SDL_BLENDMODE_BLEND : SDL_BLENDMODE_NONE)
        }
        return texture != nil
    }

    private mutating func uploadYUV(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard ensureTexture(format: SDL_PIXELFORMAT_IYUV.rawValue, width: frame.pointee.width, height: frame.pointee.height) else { return false }
        let data = frame.pointee.data
        let lines = frame.pointee.linesize
        return SDL_UpdateYUVTexture(texture, nil, data.0, lines.0, data.1, lines.1, data.2, lines.2) == 0
    }

    /// Converts to 32-bit RGB with libswscale: ARGB with alpha, else the
    /// window's own XRGB layout, which the renderer copies without converting.
    private mutating func uploadConverted(_ frame: UnsafeMutablePointer<AVFrame>, width: Int32, height: Int32, alpha: Bool) -> Bool {
        let textureFormat = alpha ? SDL_PIXELFORMAT_ARGB8888.rawValue : SDL_PIXELFORMAT_RGB888.rawValue
        guard ensureTexture(format: textureFormat, width: width, height: height) else { return false }
        scaler = sws_getCachedContext(
            scaler, frame.pointee.width, frame.pointee.height, AVPixelFormat(frame.pointee.format),
            width, height, alpha ? AV_PIX_FMT_BGRA : AV_PIX_FMT_BGR0, Int32(SWS_FAST_BILINEAR), nil, nil, nil
        )
        guard let scaler, let target = convertedFrame(width: width, height: height, format: alpha ? AV_PIX_FMT_BGRA : AV_PIX_FMT_BGR0) else { return false }
        let source = frame.pointee.data
        let sourcePlanes: [UnsafePointer<UInt8>?] = [source.0, source.1, source.2, source.3].map { $0.map { UnsafePointer($0) } }
        let lines = frame.pointee.linesize
        let sourceStrides: [Int32] = [lines.0, lines.1, lines.2, lines.3]
        var destination: [UnsafeMutablePointer<UInt8>?] = [target.pointer.pointee.data.0, nil, nil, nil]
        var destinationStrides: [Int32] = [target.pointer.pointee.linesize.0, 0, 0, 0]
        guard sws_scale(scaler, sourcePlanes, sourceStrides, 0, frame.pointee.height, &destination, &destinationStrides) > 0 else { return false }
        return SDL_UpdateTexture(texture, nil, target.pointer.pointee.data.0, target.pointer.pointee.linesize.0) == 0
    }

    /// The frame swscale converts into, kept while the size and format hold.
    private mutating func convertedFrame(width: Int32, height: Int32, format: AVPixelFormat) -> Frame? {
        if let converted, converted.pointer.pointee.width == width, converted.pointer.pointee.height == height,
           converted.pointer.pointee.format == format.rawValue {
            return converted
        }
        let frame = Frame()
        frame.pointer.pointee.format = format.rawValue
        frame.pointer.pointee.width = width
        frame.pointer.pointee.height = height
        guard av_frame_get_buffer(frame.pointer, 0) >= 0 else { return nil }
        converted = frame
        return frame
    }
}

/// The keys that type no text (arrows, space, Escape...) and Ctrl with
/// a letter, named as the terminal's keys are; text comes as text input.
private func windowKey(_ symbol: SDL_Keysym) -> Key? {
    let code = Int(symbol.sym)
    if symbol.mod & UInt16(KMOD_CTRL.rawValue) != 0 {
        if code >= Int(SDLK_a.rawValue), code <= Int(SDLK_z.rawValue) { return .control(Character(Unicode.Scalar(UInt8(code)))) }
        switch code {
        case Int(SDLK_LEFT.rawValue): return .controlLeft
        case Int(SDLK_RIGHT.rawValue): return .controlRight
        case Int(SDLK_UP.rawValue): return .controlUp
        case Int(SDLK_DOWN.rawValue): return .controlDown
        default: break
        }
    }
    switch code {
    case Int(SDLK_SPACE.rawValue): return .character(" ")
    case Int(SDLK_LEFT.rawValue): return .left
    case Int(SDLK_RIGHT.rawValue): return .right
    case Int(SDLK_UP.rawValue): return .up
    case Int(SDLK_DOWN.rawValue): return .down
    case Int(SDLK_PAGEUP.rawValue): return .pageUp
    case Int(SDLK_PAGEDOWN.rawValue): return .pageDown
    case Int(SDLK_HOME.rawValue): return .home
    case Int(SDLK_END.rawValue): return .end
    case Int(SDLK_RETURN.rawValue): return .enter
    case Int(SDLK_ESCAPE.rawValue): return .escape
    case Int(SDLK_BACKSPACE.rawValue): return .backspace
    case Int(SDLK_TAB.rawValue): return .tab
    default: return nil
    }
}
