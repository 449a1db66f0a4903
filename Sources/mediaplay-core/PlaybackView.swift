import Foundation
import Synchronization
import MediaplayCommandLine
import MediaEngine
import MediaTerminal

/// The foreground player's output: on a terminal, one status line redrawn in
/// place (state, position / duration, title) with keys; off a terminal, one
/// line per state change. SIGINT and SIGTERM stop playback cleanly (the
/// terminal and the window are restored, a WAV file is finished).
enum PlaybackView {
    static func run(_ player: Player, title: String) async throws(CLIError) {
        let terminal = TerminalInfo.detect(fd: STDERR_FILENO, environment: ProcessInfo.processInfo.environment)
        let keys = terminal.animates && isatty(STDIN_FILENO) == 1 ? KeyReader(player: player) : nil
        let region = terminal.animates ? LiveRegion(width: terminal.width) : nil
        let signals = StopOnSignals(player)
        let events = player.events()  // subscribe first: no event is missed
        player.play()
        var lastState: PlayerState?
        var duration: Double?
        var lastDrawn = -1.0
        var tick = 0
        for await event in events {
            switch event {
            case let .opened(info):
                duration = info.isImage ? nil : info.duration
            case let .state(state):
                if state != lastState {
                    lastState = state
                    // Stopped (a key, the window, Ctrl-C or SIGTERM) is not the end of the media.
                    if region == nil, let word = state == .ended && player.wasStopped ? "stopped" : word(for: state) {
                        FileHandle.standardError.write(Data("\(word) \"\(DisplayWidth.escaped(title))\"\n".utf8))
                    }
                }
                region?.draw([line(state: state, position: player.currentPosition, duration: duration, title: title)])
            case let .position(seconds):
                // Redraw at most ~12 times a second.
                if let region, abs(seconds - lastDrawn) >= 0.08 {
                    lastDrawn = seconds
                    region.draw([line(state: lastState ?? .playing, position: seconds, duration: duration, title: title)])
                }
            case let .buffered(fill):
                // Up to ten a second while buffering: the spinner turns with them.
                tick += 1
                region?.draw([line(state: .buffering, position: player.currentPosition, duration: duration, title: title, fill: fill, tick: tick)])
            }
        }
        keys?.restore()
        signals.cancel()
        if case let .failed(message)? = lastState {
            throw CLIError(message, exitCode: .dataError)
        }
    }

    static func word(for state: PlayerState) -> String? {
        switch state {
        case .loading: return nil
        case .playing: return "playing"
        case .buffering: return "buffering"
        case .paused: return "paused"
        case .ended: return "ended"
        case .failed: return nil
        }
    }

    static func line(state: PlayerState, position: Double, duration: Double?, title: String, fill: Double? = nil, tick: Int = 0) -> String {
        var mark: String
        switch state {
        case .playing: mark = "▶"
        case .buffering:
            mark = Spinner.frame(tick) + " buffering" + (fill.map { " \(Int(($0 * 100).rounded(.down)))%" } ?? "")
        case .paused: mark = "⏸"
        case .ended: mark = "■"
        case .loading: mark = "…"
        case .failed: mark = "✗"
        }
        let time = duration.map { "\(formatDuration(position)) / \(formatDuration($0))" } ?? formatDuration(position)
        if state == .buffering { return "\(mark) at \(time)  \(DisplayWidth.singleLine(title))   space pause · q quit" }
        return "\(mark) \(time)  \(DisplayWidth.singleLine(title))   space pause · ←/→ seek · q quit"
    }
}

/// Stops the player (or the downloads) on SIGINT or SIGTERM, so every exit
/// path restores the terminal and finishes output and part files.
final class StopOnSignals: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]
    private let received: ReceivedSignal

    /// The signal that came, if one did.
    var signalNumber: Int32? { received.number }

    convenience init(_ player: Player) {
        self.init { _ in player.stop() }
    }

    init(_ stop: @escaping @Sendable (Int32) -> Void) {
        let received = ReceivedSignal()
        self.received = received
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.record(number)
                stop(number)
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// The first stop signal that came.
private final class ReceivedSignal: Sendable {
    private let first = Mutex<Int32?>(nil)
    var number: Int32? { first.withLock { $0 } }
    func record(_ number: Int32) { first.withLock { if $0 == nil { $0 = number } } }
}

/// Reads keys from a terminal in raw mode on a thread of its own (read(2)
/// blocks), and restores the terminal when done.
final class KeyReader: @unchecked Sendable {
    private var saved = termios()
    private let player: Player

    init(player: Player) {
        self.player = player
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        let thread = Thread { [self] in loop() }
        thread.name = "mediaplay.keys"
        thread.start()
    }

    private func loop() {
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "p"): player.toggle()
            case UInt8(ascii: "q"): player.stop(); return
            case 0x1B:
                // An arrow key is ESC [ C / ESC [ D; ESC alone quits.
                guard let next = readSoon(), next == UInt8(ascii: "["), let code = readSoon() else { player.stop(); return }
                if code == UInt8(ascii: "C") { player.seek(by: 5) }
                if code == UInt8(ascii: "D") { player.seek(by: -5) }
            default: break
            }
        }
    }

    /// The next byte if one arrives within 50 ms (the rest of an escape sequence).
    private func readSoon() -> UInt8? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 50) == 1 else { return nil }
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
    }

    func restore() {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }
}
