import Foundation
import Synchronization
import MediaplayCommandLine
import MediaEngine
import MediaFeed
import MediaModel
import MediaSession
import MediaTerminal
import MediaCacheCommands

/// `play`'s front end to its session: on a terminal, one status line
/// redrawn in place (state, position / duration, title) with keys; off a
/// terminal, one line per change of state. Keys and SIGINT/SIGTERM are
/// commands of the session, as everywhere (the terminal and the window are
/// restored, a WAV file is finished).
enum PlaybackView {
    /// How a playback ended, for the exit status.
    enum Outcome {
        case finished
        case failed(CommandError)
    }

    /// `screen`: the terminal pictures are drawn on, if any; while it shows
    /// them, the status line is its bottom row.
    static func run(_ session: MediaSession, item first: FeedItem, from start: Double, screen: TerminalScreen? = nil) async -> Outcome {
        enum Step {
            case event(ItemEvent)
            case refused(CommandError)
            /// A stop came before anything played (during a download).
            case stoppedBeforeStart
            /// `<` or `>` could not move on: why.
            case notice(String)
        }
        // The item shown: the one asked for, until `<` or `>` (here or in
        // the window) starts another.
        let followed = FollowedItem(first.key)
        var item = first
        let (steps, stepSink) = AsyncStream.makeStream(of: Step.self)
        let terminal = TerminalInfo.detect(fd: STDERR_FILENO, environment: ProcessInfo.processInfo.environment)
        let keys = terminal.animates && isatty(STDIN_FILENO) == 1
            ? KeyReader(session: session, current: { followed.key }) { forward in
                Task {
                    do throws(CommandError) {
                        _ = forward ? try await session.next() : try await session.previous()
                    } catch {
                        stepSink.yield(.notice(error.message))
                    }
                }
            }
            : nil
        let region = terminal.animates ? LiveRegion(width: terminal.width) : nil
        /// The status line: on the pictures' screen while it shows them.
        func show(_ line: String) {
            if let screen, screen.isShowingPictures { screen.setStatus(line) } else { region?.draw([line]) }
        }
        let signals = StopOnSignals { _ in Task { await session.stop(followed.key) } }
        defer {
            keys?.restore()
            signals.cancel()
        }
        // Subscribed before playback starts: no event is missed.
        let events = session.events()
        let forward = Task {
            for await event in events {
                // Another item starting (only `<` and `>` start one: autoplay
                // is off here) is followed from then on.
                let id = event.status.id
                if id != followed.key {
                    guard event.event == .state, [.downloading, .buffering, .playing].contains(event.status.state) else { continue }
                    followed.key = id
                }
                stepSink.yield(.event(event))
            }
        }
        let starting = Task {
            do throws(CommandError) {
                let status = try await session.play(first.key, from: start)
                if status.state == .idle || status.state == .stopped { stepSink.yield(.stoppedBeforeStart) }
            } catch {
                stepSink.yield(.refused(error))
            }
        }
        defer {
            forward.cancel()
            starting.cancel()
        }
        var lastState: ItemState?
        var tick = 0
        var lastDrawn = -1.0
        var notice: String?
        for await step in steps {
            let status: ItemStatus
            switch step {
            case let .notice(text):
                notice = text
                if let status = session.status(of: item.key) { show(line(status, title: item.title, tick: tick, audio: session.audioShaping, notice: notice)) }
                continue
            case let .refused(error):
                region?.draw([])
                return .failed(error)
            case .stoppedBeforeStart:
                region?.draw([])
                if region == nil { StandardStream.error("stopped \"\(DisplayWidth.escaped(item.title))\"\n") }
                return .finished
            case let .event(event):
                status = event.status
                if status.id != item.key {
                    item = session.item(for: status.id) ?? item
                    lastState = nil
                }
                switch event.event {
                case .state:
                    notice = nil
                    // A closed picture reads idle: for `play`, it stopped.
                    let state = status.state == .idle && lastState != nil ? .stopped : status.state
                    if region == nil, screen?.isShowingPictures != true, state != lastState, let word = word(for: state) {
                        StandardStream.error("\(word) \"\(DisplayWidth.escaped(item.title))\"\n")
                    }
                    lastState = state
                    show(line(status, title: item.title, tick: tick, audio: session.audioShaping, notice: notice))
                    if state.isFinal {
                        // The pictures' screen first: the line below is on the shell's.
                        screen?.close()
                        region?.draw([])
                        if state == .failed {
                            return .failed(session.failure(of: item.key) ?? CommandError(.playbackFailed, status.error ?? "playback failed"))
                        }
                        return .finished
                    }
                case .position:
                    // Redraw at most ~12 times a second.
                    if region != nil || screen?.isShowingPictures == true, abs(status.position - lastDrawn) >= 0.08 {
                        lastDrawn = status.position
                        show(line(status, title: item.title, tick: tick, audio: session.audioShaping, notice: notice))
                    }
                case .progress:
                    // Up to ten a second while downloading or buffering: the spinner turns with them.
                    tick += 1
                    show(line(status, title: item.title, tick: tick, audio: session.audioShaping, notice: notice))
                }
            }
        }
        return .finished
    }

    static let keysHelp = "space pause · ←/→ seek · 9/0 volume · [/] speed · </> item · q quit"

    static func word(for state: ItemState) -> String? {
        switch state {
        case .idle, .failed: return nil
        default: return state.rawValue
        }
    }

    /// The status line; `notice` (a refused key) in place of the keys' help.
    static func line(_ status: ItemStatus, title: String, tick: Int, audio: AudioSettings = AudioSettings(), notice: String? = nil) -> String {
        var name = DisplayWidth.singleLine(title)
        if audio.muted { name += "  🔇" } else if audio.volume != 100 { name += "  🔉 \(audio.volume) %" }
        if audio.speed != 1 { name += "  \(SpeedText.text(audio.speed))" }
        let time = status.duration.map { "\(StatusText.clock(status.position)) / \(StatusText.clock($0))" } ?? StatusText.clock(status.position)
        let percent = status.progress.map { " \(Percent.text($0))" } ?? ""
        switch status.state {
        case .downloading: return "\(Spinner.frame(tick)) downloading\(percent)  \(name)   q quit"
        case .buffering: return "\(Spinner.frame(tick)) buffering\(percent) at \(time)  \(name)   space pause · q quit"
        case .playing: return "▶ \(time)  \(name)   \(notice ?? keysHelp)"
        case .paused: return "⏸ \(time)  \(name)   \(notice ?? keysHelp)"
        case .idle, .stopped, .ended: return "■ \(time)  \(name)"
        case .failed: return "✗ \(name)"
        }
    }
}

/// The item `play` shows, shared by its view and its keys.
private final class FollowedItem: Sendable {
    private let current: Mutex<ItemKey>
    init(_ key: ItemKey) { current = Mutex(key) }
    var key: ItemKey {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

/// Reads keys from a terminal in raw mode on a thread of its own (read(2)
/// blocks), turns them into commands of the session, and restores the
/// terminal when done.
final class KeyReader: @unchecked Sendable {
    private var saved = termios()
    private let session: MediaSession
    /// The item the keys act on (it changes with `<` and `>`).
    private let current: @Sendable () -> ItemKey
    /// `<` and `>`: the feed's previous or next item (true: next).
    private let step: @Sendable (Bool) -> Void
    private var key: ItemKey { current() }

    init(session: MediaSession, current: @escaping @Sendable () -> ItemKey, step: @escaping @Sendable (Bool) -> Void) {
        self.session = session
        self.current = current
        self.step = step
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
            case UInt8(ascii: " "), UInt8(ascii: "p"): session.togglePause(key)
            case UInt8(ascii: "9"): session.changeVolume(by: -VideoWindowInput.volumeStep)
            case UInt8(ascii: "0"): session.changeVolume(by: VideoWindowInput.volumeStep)
            case UInt8(ascii: "m"): session.setMuted(nil)
            case UInt8(ascii: "["): session.changeSpeed(by: 1 / 1.1)
            case UInt8(ascii: "]"): session.changeSpeed(by: 1.1)
            case 0x7F, 0x08: session.setSpeed(1)
            case UInt8(ascii: ">"): step(true)
            case UInt8(ascii: "<"): step(false)
            case UInt8(ascii: "q"): return stop()
            case 0x1B:
                // An arrow key is ESC [ C / ESC [ D; ESC alone quits.
                guard let next = readSoon(), next == UInt8(ascii: "["), let code = readSoon() else { return stop() }
                if code == UInt8(ascii: "C") { try? session.seek(key, by: 5) }
                if code == UInt8(ascii: "D") { try? session.seek(key, by: -5) }
            default: break
            }
        }
    }

    private func stop() {
        let (session, key) = (session, key)
        Task { await session.stop(key) }
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
