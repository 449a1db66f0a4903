import Foundation
import MediaEngine
import MediaTerminal

/// The foreground player's output: on a terminal, one status line redrawn in
/// place (state, position, title) with keys (space pauses, q quits); off a
/// terminal, one line per state change.
enum PlaybackView {
    /// `videoShown`: whether a video sink was given; if the file has video and
    /// none was, the user is told that only the audio plays.
    static func run(_ player: Player, title: String, videoShown: Bool) async throws(CLIError) {
        let terminal = TerminalInfo.detect(fd: STDERR_FILENO, environment: ProcessInfo.processInfo.environment)
        let keys = terminal.animates && isatty(STDIN_FILENO) == 1 ? KeyReader(player: player) : nil
        let region = terminal.animates ? LiveRegion(width: terminal.width) : nil
        let events = player.events()  // subscribe first: no event is missed
        player.play()
        var lastState: PlayerState?
        var lastDrawn = -1.0
        for await event in events {
            switch event {
            case let .opened(info):
                if info.hasVideo && !videoShown {
                    FileHandle.standardError.write(Data("mediaplay: no video window in this version: playing the audio only (record frames with --video-out)\n".utf8))
                }
            case let .state(state):
                if state != lastState {
                    lastState = state
                    if region == nil, let word = word(for: state) {
                        FileHandle.standardError.write(Data("\(word) \"\(title)\"\n".utf8))
                    }
                }
                region?.draw([line(state: state, position: player.currentPosition, title: title)])
            case let .position(seconds):
                // Redraw at most ~12 times a second.
                if let region, abs(seconds - lastDrawn) >= 0.08 {
                    lastDrawn = seconds
                    region.draw([line(state: lastState ?? .playing, position: seconds, title: title)])
                }
            }
        }
        keys?.restore()
        if case let .failed(message)? = lastState {
            throw CLIError(message, exitCode: .dataError)
        }
    }

    static func word(for state: PlayerState) -> String? {
        switch state {
        case .loading: return nil
        case .playing: return "playing"
        case .paused: return "paused"
        case .ended: return "ended"
        case .failed: return nil
        }
    }

    static func line(state: PlayerState, position: Double, title: String) -> String {
        let mark: String
        switch state {
        case .playing: mark = "▶"
        case .paused: mark = "⏸"
        case .ended: mark = "■"
        case .loading: mark = "…"
        case .failed: mark = "✗"
        }
        return "\(mark) \(formatDuration(position))  \(DisplayWidth.singleLine(title))   space: pause  q: quit"
    }
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
            case UInt8(ascii: " "): player.toggle()
            case UInt8(ascii: "q"), 0x1B: player.stop(); return
            default: break
            }
        }
    }

    func restore() {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }
}
