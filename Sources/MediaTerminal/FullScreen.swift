#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal as a full-screen application uses it: raw input, the
/// alternate screen, no cursor, mouse clicks reported. `leave` puts back
/// exactly what `enter` found; a crash does too (a fatal signal restores the
/// terminal before the process dies), and so does `suspend` around Ctrl-Z.
public final class FullScreen: @unchecked Sendable {
    public let input: Int32
    public let output: Int32
    private let mouse: Bool
    private var saved = termios()
    private var active = false

    /// The screen's size in cells, and a cell's size in pixels when the
    /// terminal says (sixel and kitty images are sized in pixels).
    public struct Size: Sendable, Equatable {
        public var columns: Int
        public var rows: Int
        public var cellWidth: Int?
        public var cellHeight: Int?

        public init(columns: Int, rows: Int, cellWidth: Int? = nil, cellHeight: Int? = nil) {
            self.columns = columns
            self.rows = rows
            self.cellWidth = cellWidth
            self.cellHeight = cellHeight
        }
    }

    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[2J"
    static let mouseOn = "\u{1B}[?1000h\u{1B}[?1006h"
    static let mouseOff = "\u{1B}[?1006l\u{1B}[?1000l"
    static let leaveSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, mouse: Bool = true) {
        self.input = input
        self.output = output
        self.mouse = mouse
    }

    /// Both ends are terminals (a full-screen view makes no sense otherwise).
    public var isAvailable: Bool { isatty(input) == 1 && isatty(output) == 1 }

    public func size() -> Size {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return Size(columns: 80, rows: 24)
        }
        let columns = Int(size.ws_col), rows = Int(size.ws_row)
        let cellWidth = size.ws_xpixel > 0 ? Int(size.ws_xpixel) / columns : nil
        let cellHeight = size.ws_ypixel > 0 ? Int(size.ws_ypixel) / rows : nil
        return Size(columns: columns, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight)
    }

    /// Raw input, alternate screen, hidden cursor; safe to call again after
    /// a suspend (it re-reads nothing it already saved).
    public func enter() throws(TerminalError) {
        if !active {
            guard tcgetattr(input, &saved) == 0 else { throw TerminalError("cannot read the terminal's settings: \(String(cString: strerror(errno)))") }
        }
        var raw = saved
        // No line editing, echo, signals from keys (^C, ^Z arrive as bytes
        // and the view handles them), flow control or CR translation.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | BRKINT | ISTRIP)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { throw TerminalError("cannot put the terminal in raw mode: \(String(cString: strerror(errno)))") }
        active = true
        let restore = (mouse ? Self.mouseOff : "") + Self.leaveSequence
        CrashRestore.arm(fd: input, output: output, settings: saved, sequence: restore)
        write(Self.enterSequence + (mouse ? Self.mouseOn : ""))
    }

    /// Puts back the terminal a full-screen view holds, from any thread,
    /// as the process ends on a failure no view can handle (a media library
    /// missing): no locks, no allocation.
    public static func restoreBeforeExit() {
        CrashRestore.restore()
    }

    /// Puts the terminal back as `enter` found it.
    public func leave() {
        guard active else { return }
        write((mouse ? Self.mouseOff : "") + Self.leaveSequence)
        tcsetattr(input, TCSAFLUSH, &saved)
        CrashRestore.disarm()
        active = false
    }

    /// Ctrl-Z: restores the terminal, stops the process as the shell
    /// expects, and returns after `fg` with the full-screen state back (the
    /// caller redraws everything).
    public func suspend() {
        leave()
        kill(getpid(), SIGSTOP)
        try? enter()
    }

    /// Writes all of `text` (a frame is one write where the kernel allows).
    public func write(_ text: String) {
        TerminalOutput.write(text, to: output)
    }
}

/// Writing a whole screenful to a terminal.
public enum TerminalOutput {
    /// Writes all of `text` to `descriptor` (one write where the kernel
    /// allows; interrupted and partial writes go on; an error drops the rest).
    public static func write(_ text: String, to descriptor: Int32) {
        write(Array(text.utf8), to: descriptor)
    }

    /// The same for bytes already encoded (a video frame).
    public static func write(_ bytes: [UInt8], to descriptor: Int32) {
        var bytes = bytes
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}

public struct TerminalError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a fatal signal handler needs to restore the terminal, kept where an
/// async-signal-safe handler can reach it without locks or allocation.
enum CrashRestore {
    nonisolated(unsafe) static var inputFD: Int32 = -1
    nonisolated(unsafe) static var outputFD: Int32 = -1
    /// On the heap, sized by MemoryLayout: AddressSanitizer saw the
    /// compiler's global for it 57 bytes long, and the 60-byte termios
    /// stored into it overflowed.
    nonisolated(unsafe) static let settings: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()
    nonisolated(unsafe) static var sequence: UnsafeMutableBufferPointer<UInt8>?
    static let fatalSignals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

    static func arm(fd: Int32, output: Int32, settings saved: termios, sequence text: String) {
        if sequence == nil {
            let bytes = Array(text.utf8)
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = buffer.initialize(from: bytes)
            sequence = buffer
        }
        settings.pointee = saved
        outputFD = output
        inputFD = fd
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = restoreAndDie
            action.sa_flags = Int32(bitPattern: SA_RESETHAND) | SA_NODEFER
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    static func disarm() {
        inputFD = -1
        for signal in fatalSignals { Glibc.signal(signal, SIG_DFL) }
    }

    /// Terminal settings and screen back, when a view holds them.
    static func restore() {
        if inputFD >= 0, let sequence {
            _ = write(outputFD, sequence.baseAddress, sequence.count)
            _ = tcsetattr(inputFD, TCSAFLUSH, settings)
        }
    }
}

/// The fatal-signal handler: terminal settings and screen back, then the
/// default action (core dump or abort) with the same signal.
private func restoreAndDie(_ signal: Int32) {
    CrashRestore.restore()
    raise(signal)
}
