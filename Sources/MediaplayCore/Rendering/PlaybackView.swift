import Foundation
import Synchronization
import MediaplayCommandLine
import MediaEngine
import MediaFeed
import MediaModel
import MediaSession
import MediaTerminal
import MediaTerminalVideo
import MediaplayCommon

/// `play`'s front end to its session: on a terminal, one status line
/// redrawn in place (state, position / duration, title) with keys; off a
/// terminal, one line per change of state. Keys and SIGINT/SIGTERM are
/// commands of the session, as everywhere (the terminal and the window are
/// restored, a WAV file is finished).
enum PlaybackView {
    /// How a playback ended, for the exit status.
    enum Outcome {
        /// Nothing more to play. `worst`: the exit status of the worst
        /// failure said on the way (each in its line as it came), if any.
        case finished(worst: SysExit?)
        /// Ended by SIGINT or SIGTERM (its number): exit 128 + it.
        case interrupted(Int32)
    }

    /// `screen`: the terminal pictures are drawn on, if any; while it shows
    /// them, the status line is its bottom row. `from`: where the first item
    /// starts (nil: where it was left). `failed`: a failure's one line and
    /// exit status; it is said when it happens, and the playlist plays on
    /// past it (as mpv does) when there is more to play.
    /// `clock`: how long a key's message shows (mpv's OSD: two seconds);
    /// `windowTitles`: shows it in the window's title too (nil: back to the
    /// title alone); `details`: an item's tags (artist, album), looked up
    /// off the cooperative pool.
    static func run(
        _ session: MediaSession, item first: FeedItem, from start: Double?, screen: TerminalScreen? = nil, clock: any MediaClock = SystemClock.shared,
        windowTitles: @escaping @Sendable (String?) -> Void = { _ in }, details: @escaping @Sendable (FeedItem) -> MediaDetails? = { _ in nil },
        failed describe: @escaping (FeedItem, CommandError) -> CLIError
    ) async -> Outcome {
        enum Step {
            case event(ItemEvent)
            case refused(CommandError)
            /// A stop came before anything played (during a download).
            case stoppedBeforeStart
            /// `<` or `>` could not move on: why.
            case notice(String)
            /// What a key did (here or in the window).
            case key(KeyFeedback)
            /// A key's message has shown its time.
            case messageGone(Int)
            /// An item's tags, once looked up.
            case details(ItemKey, MediaDetails?)
        }
        // The item shown: the one asked for, until `<` or `>` (here or in
        // the window) starts another.
        let followed = FollowedItem(first.key)
        var item = first
        let (steps, stepSink) = AsyncStream.makeStream(of: Step.self)
        // Interactive means the terminal the user sees: keys whenever stdin
        // is one, and the status line on stderr's terminal, else on
        // stdout's (`play song.mp3 2>err.txt` keeps both).
        let onStderr = TerminalInfo.standardError()
        let (terminal, statusOutput) = onStderr.animates
            ? (onStderr, STDERR_FILENO) : (TerminalInfo.standardOutput(), STDOUT_FILENO)
        let keys = CommandContext.current.inputIsTerminal
            ? KeyReader(session: session, keymap: session.keymap, current: { followed.key }) { forward in
                Task {
                    do throws(CommandError) {
                        _ = try await session.perform(forward ? .next : .previous)
                    } catch {
                        stepSink.yield(.notice(error.message))
                    }
                }
            }
            : nil
        let region = terminal.animates ? LiveRegion(output: statusOutput, width: terminal.width) : nil
        /// The status line: on the pictures' screen while it shows them.
        func show(_ line: String) {
            if let screen, screen.isShowingPictures { screen.setStatus(line) } else { region?.draw([line]) }
        }
        let signals = StopOnSignals { _ in
            Task { await Self.stop(followed.key, in: session) }
        }
        defer {
            keys?.restore()
            signals.cancel()
        }
        /// The worst failure said so far.
        var worst: SysExit?
        /// Finished, unless a signal ended it.
        var finished: Outcome { signals.signalNumber.map(Outcome.interrupted) ?? .finished(worst: worst) }
        /// Failures said while the terminal showed pictures: printed once it is closed.
        var held: [CLIError] = []
        /// The items whose failure was said (the failed event and a refused
        /// start tell of one failure; an item said again once it played).
        var said: Set<ItemKey> = []
        /// A failure's one line, above the status line, as it happens.
        func say(_ error: CommandError, of failed: FeedItem) {
            guard said.insert(failed.key).inserted else { return }
            let line = describe(failed, error)
            if worst.map({ line.exitCode.rawValue > $0.rawValue }) ?? true { worst = line.exitCode }
            if screen?.isShowingPictures == true {
                held.append(line)
                return
            }
            region?.draw([])
            line.report()
        }
        defer {
            screen?.close()
            for line in held { line.report() }
        }
        // Subscribed before playback starts: no event is missed.
        // `<` and `>` go somewhere only when there is more than one item.
        let several = session.feed.items.count > 1
        let events = session.events()
        let forward = Task {
            for await event in events {
                // Another item starting (only `<` and `>` start one: autoplay
                // is off here) is followed from then on.
                let id = event.status.id
                if id != followed.key {
                    // (A next item that fails to start is followed too: its
                    // failure ends `play`, where waiting for it would hang.)
                    // (A short item on a busy machine can end before its
                    // playing is announced: its first event is `ended`, and
                    // as the session's current item it is followed too.)
                    guard event.event == .state,
                          [.downloading, .buffering, .playing, .failed].contains(event.status.state)
                          || (event.status.state == .ended && session.currentStatus()?.id == id)
                    else { continue }
                    followed.key = id
                }
                stepSink.yield(.event(event))
            }
        }
        // What keys do, here and in the window: a message for a moment.
        let keyFeedback = session.keyFeedback()
        let forwardKeys = Task {
            for await feedback in keyFeedback { stepSink.yield(.key(feedback)) }
        }
        /// An item's tags, looked up once (a probe: off the pool).
        var looked: Set<ItemKey> = []
        func lookUpDetails(_ item: FeedItem) {
            guard looked.insert(item.key).inserted else { return }
            DispatchQueue.global().async { stepSink.yield(.details(item.key, details(item))) }
        }
        lookUpDetails(first)
        let starting = Task {
            do throws(CommandError) {
                let status = try await session.perform(.play(.id(first.id), from: start)).item ?? session.status(of: first)
                if status.state == .idle || status.state == .stopped { stepSink.yield(.stoppedBeforeStart) }
            } catch {
                stepSink.yield(.refused(error))
            }
        }
        defer {
            forward.cancel()
            forwardKeys.cancel()
            starting.cancel()
        }
        var lastState: ItemState?
        /// Nothing plays on from the item shown: once what the session
        /// started by itself is over, any failure not said yet (the playlist
        /// may have gone past an item before its word came) is said. True:
        /// `play` ends; false: something plays after all (now followed).
        func nothingPlaysOn() async -> Bool {
            await session.settle()
            if let now = session.currentStatus(), !now.state.isFinal, now.id != item.key {
                followed.key = now.id
                item = session.item(for: now.id) ?? item
                lastState = nil
                return false
            }
            for unsaid in session.feed.items where !said.contains(unsaid.key) {
                if let failure = session.failure(of: unsaid.key) { say(failure, of: unsaid) }
            }
            return true
        }
        var tick = 0
        var lastDrawn = -1.0
        var notice: String?
        var subtitleErrorSaid: String?
        var message = OnScreenMessage()
        var tags: [ItemKey: MediaDetails] = [:]
        let count = session.feed.items.count
        /// The status line of `status`, with what shows now: a key's
        /// message, else a notice, else the keys.
        func draw(_ status: ItemStatus) {
            let credits = tags[item.key].map { [$0.artist, $0.album].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ") }
            show(line(
                status, title: item.title, kind: item.kind, several: several, tick: tick, audio: session.audioSettings,
                notice: message.current(at: clock.now) ?? notice, credits: credits, place: several ? "\(item.position)/\(count)" : nil
            ))
        }
        for await step in steps {
            let status: ItemStatus
            switch step {
            case let .notice(text):
                notice = text
                if let status = session.status(of: item.key) { draw(status) }
                continue
            case let .key(feedback):
                // What the key changed, read from what it left (mpv's OSD).
                let text: String?
                switch feedback {
                case let .done(command):
                    text = OnScreenText.message(
                        for: command, status: session.status(of: item.key), audio: session.audioSettings, playlist: session.playlistMode, sleep: session.sleepStatus
                    )
                case let .refused(_, error): text = OnScreenText.refusal(error)
                }
                guard let text else { continue }
                let (generation, until) = message.show(text, at: clock.now)
                windowTitles(text)
                Task {
                    try? await clock.sleep(until: until)
                    stepSink.yield(.messageGone(generation))
                }
                if let status = session.status(of: item.key) { draw(status) }
                continue
            case let .messageGone(generation):
                if message.expire(generation) {
                    windowTitles(nil)
                    if let status = session.status(of: item.key) { draw(status) }
                }
                continue
            case let .details(key, found):
                if let found { tags[key] = found }
                if key == item.key, let status = session.status(of: key) { draw(status) }
                continue
            case let .refused(error):
                // The first item could not start (a missing file, a failed
                // download): said, and the rest plays on, if there is any.
                say(error, of: first)
                if session.playOn(pastFailureOf: first.key) { continue }
                guard await nothingPlaysOn() else { continue }
                region?.draw([])
                return finished
            case .stoppedBeforeStart:
                region?.draw([])
                if region == nil { StandardStream.error("stopped \"\(DisplayWidth.escaped(item.title))\"\n") }
                return finished
            case let .event(event):
                status = event.status
                if status.id != item.key { lastState = nil }
                // The session's item: a web page's title once yt-dlp said it.
                item = session.item(for: status.id) ?? item
                lookUpDetails(item)
                // A subtitle track left out or refused: said once, in one line.
                if let problem = status.tracks?.subtitleError, problem != subtitleErrorSaid {
                    subtitleErrorSaid = problem
                    if region == nil, screen?.isShowingPictures != true {
                        StandardStream.error(DisplayWidth.escaped(problem) + "\n")
                    } else {
                        notice = problem
                    }
                }
                switch event.event {
                case .state:
                    notice = nil
                    // A closed picture reads idle: for `play`, it stopped.
                    let state = status.state == .idle && lastState != nil ? .stopped : status.state
                    if state == .playing { said.remove(item.key) }
                    if region == nil, screen?.isShowingPictures != true, state != lastState, let word = word(for: state) {
                        // Where it starts, when not at the top (resumed, or --start).
                        let start = state == .playing && lastState == nil && item.kind != .image ? session.startPosition(of: item.key) ?? 0 : 0
                        let from = start >= 1 ? " from \(StatusText.clock(start))" : ""
                        StandardStream.error("\(word) \"\(DisplayWidth.escaped(item.title))\"\(from)\n")
                    }
                    // A file that cannot be read or decoded: its one line, then what plays on.
                    if state == .failed, state != lastState {
                        say(session.failure(of: item.key) ?? CommandError(.playbackFailed, status.error ?? "playback failed"), of: item)
                    }
                    // The item shown was skipped (`<`, `>`, here or in the
                    // window): its stop may come before the next one's first
                    // state. What the session plays now is followed; `play`
                    // ends only when nothing plays on.
                    if state.isFinal, let now = session.currentStatus(), now.id != status.id, !now.state.isFinal {
                        followed.key = now.id
                        item = session.item(for: now.id) ?? item
                        lastState = nil
                        continue
                    }
                    // Played to its end, or failed, with more to play (files,
                    // a folder or a playlist in turn): the next item's start
                    // is followed.
                    if state == .ended || state == .failed, session.willPlayOn(after: status.id) {
                        lastState = state
                        continue
                    }
                    lastState = state
                    draw(status)
                    if state.isFinal {
                        guard await nothingPlaysOn() else { continue }
                        // The pictures' screen first: the line below is on the shell's.
                        screen?.close()
                        region?.draw([])
                        return finished
                    }
                case .position:
                    // Redraw at most ~12 times a second.
                    if region != nil || screen?.isShowingPictures == true, abs(status.position - lastDrawn) >= 0.08 {
                        lastDrawn = status.position
                        draw(status)
                    }
                case .progress:
                    // Up to ten a second while downloading or buffering: the spinner turns with them.
                    tick += 1
                    draw(status)
                case .subtitle:
                    // The terminal's picture shows the text itself; the line shows the tracks' changes.
                    draw(status)
                case .metadata:
                    // A live stream's now-playing line: on the status line, or a line of its own.
                    if region == nil, screen?.isShowingPictures != true, let title = status.streamTitle {
                        StandardStream.error("now playing \"\(DisplayWidth.escaped(title))\"\n")
                    }
                    draw(status)
                }
            }
        }
        return finished
    }

    /// The keys that do something now: a picture has nothing to seek,
    /// sound or speed; `</>` only where there is another item; space says
    /// what it will do.
    static func keysHelp(_ state: ItemState, kind: MediaKind?, several: Bool) -> String {
        var keys: [String] = []
        if kind != .image {
            keys.append(state == .paused ? "space play" : "space pause")
            keys += ["←/→ seek", "9/0 volume", "[/] speed"]
        }
        if several { keys.append("</> item") }
        keys.append("q quit")
        return keys.joined(separator: " · ")
    }

    static func word(for state: ItemState) -> String? {
        switch state {
        case .idle, .failed: return nil
        default: return state.rawValue
        }
    }

    /// The status line; `notice` (a key's message, a refused key) in place
    /// of the keys' help; `credits`: the artist and album when known;
    /// `place`: where the item is in the list ("3/12").
    static func line(
        _ status: ItemStatus, title: String, kind: MediaKind? = nil, several: Bool = false, tick: Int, audio: AudioSettings = AudioSettings(), notice: String? = nil,
        credits: String? = nil, place: String? = nil
    ) -> String {
        var name = (place.map { $0 + " " } ?? "") + DisplayWidth.singleLine(title.redactingUserinfo)
        if let credits, !credits.isEmpty { name += " — " + DisplayWidth.singleLine(credits) }
        if let chapter = status.chapter, [.playing, .paused, .buffering].contains(status.state) {
            name += " · chapter \(chapter.number)/\(chapter.count)" + (chapter.title.isEmpty ? "" : " " + DisplayWidth.singleLine(chapter.title))
        }
        if let playing = status.streamTitle, !playing.isEmpty { name += " · " + DisplayWidth.singleLine(playing) }
        if audio.muted { name += "  🔇" } else if audio.volume != 100 { name += "  🔉 \(audio.volume) %" }
        if audio.speed != 1 { name += "  \(SpeedText.text(audio.speed))" }
        // The loudness gain (G cycles its mode), "−6.5 dB track".
        if let gain = status.gain { name += "  \(gain.brief)" }
        let time = status.live == true ? "live \(StatusText.clock(status.position))"
            : status.duration.map { "\(StatusText.clock(status.position)) / \(StatusText.clock($0))" } ?? StatusText.clock(status.position)
        let percent = status.progress.map { " \(Percent.text($0))" } ?? ""
        switch status.state {
        case .downloading: return "\(Spinner.frame(tick)) downloading\(percent)  \(name)   q quit"
        case .buffering: return "\(Spinner.frame(tick)) buffering\(percent) at \(time)  \(name)   space pause · q quit"
        case .playing, .paused:
            let keys = notice ?? keysHelp(status.state, kind: kind, several: several)
            // A picture has no time to show.
            if kind == .image { return "▶ \(name)   \(keys)" }
            return "\(status.state == .paused ? "⏸" : "▶") \(time)  \(name)   \(keys)"
        case .idle, .stopped, .ended: return "■ \(time)  \(name)"
        case .failed: return "✗ \(name)"
        }
    }

    /// q or a signal: the item shown stops, and whatever the session plays
    /// now (a step under way may have made another item current before the
    /// view heard of it: stopping only the shown one left that one playing).
    static func stop(_ shown: ItemKey, in session: MediaSession) async {
        _ = try? await session.perform(.stop(.id(shown.rawValue)))
        _ = try? await session.perform(.stop(nil))
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
    private let keymap: Keymap
    private var key: ItemKey { current() }

    init(session: MediaSession, keymap: Keymap = .standard, current: @escaping @Sendable () -> ItemKey, step: @escaping @Sendable (Bool) -> Void) {
        self.session = session
        self.keymap = keymap
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

    /// Keys decoded once (`KeyDecoder`), each looked up in the keymap and
    /// carried out by the session's one entry point, on this thread when it
    /// waits for nothing, so keys act in the order they were pressed.
    private func loop() {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            guard count > 0 else { return }
            for key in decoder.decode(buffer[0..<count]) {
                guard let command = keymap.command(for: key) else { continue }
                switch command {
                case .quit: return stop()
                // The feed's items, in `play`'s own order.
                case .next: step(true)
                case .previous: step(false)
                default:
                    session.performDetached(command)
                }
            }
        }
    }

    /// q: the item shown stops, and whatever the session plays now (a
    /// step under way may have made another item current before the view
    /// heard of it: stopping only the shown one left that one playing, and
    /// `play` running).
    private func stop() {
        let (session, key) = (session, key)
        Task { await PlaybackView.stop(key, in: session) }
    }

    func restore() {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }
}
