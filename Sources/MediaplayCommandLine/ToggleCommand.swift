import ArgumentParser
import Foundation
import MediaModel
import MediaControl
import MediaFeed
import MediaTerminal
import MediaplayCommon

public struct ToggleCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "toggle",
        abstract: "Play an item in the background player, pause it if it plays, resume it if paused.",
        discussion: """
            Starts the background player when it is not running (not for an item \
            that does not exist). N is a number of the feed the background player \
            plays, as 'mediaplay status' names it (its queue), whatever your default \
            feed is; with --feed or MEDIAPLAY_FEED naming another feed, toggle says \
            so and does nothing, unless --replace ends that player and starts one \
            with the feed named. Playing another item \
            pauses the current one (its position is kept); a stopped item resumes where \
            it stood, an ended one plays again from the start; an image opens its \
            window, and a second toggle closes it. N is the number 'mediaplay list' \
            shows now: the background player follows changes to the feed file. \
            Prints the new state in one line. An audio or video item that is not cached \
            plays while it downloads, as soon as its first bytes are in; a picture is \
            downloaded first, with its progress (--no-wait returns as soon as the item \
            plays or fails, or its download has started). A video in a background \
            player with no display plays its sound, and toggle says how to watch it \
            in this terminal (mediaplay play N).

            Exit status: 0 ok, 1 the file cannot be played, 65 invalid item, 66 no such \
            item, 69 download failed or the background player unreachable.

            Examples:
              mediaplay toggle 2          ▶ playing 2 "Title" 00:00/03:20
              mediaplay toggle 2          ⏸ paused 2 "Title" at 00:41
              mediaplay toggle sintel     by id
              mediaplay toggle ~/song.mp3 a file by itself
              mediaplay toggle 3 --feed talks --replace
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The item: its number in 'mediaplay list', or its id; or a file or an http(s) URL to play by itself.", valueName: "n|id|path|url"))
    var item: String

    @Flag(name: .customLong("no-wait"), help: "Do not wait for a download to finish: return once it has started.")
    var noWait = false

    @Flag(name: .long, help: "When the background player plays another feed than --feed (or MEDIAPLAY_FEED) names, end it and start one with this feed.")
    var replace = false

    public func run() throws {
        try runReportingErrors {
            // Without --feed or MEDIAPLAY_FEED, the numbers are those of
            // the feed the background player plays (its queue); a feed
            // named is checked against it.
            let named = try global.namedFeed().map(BackgroundPlayer.feedIdentity(of:))
            var client = try BackgroundPlayer.connect(global, start: false)
            // Started here: a toggle of no such item leaves none behind.
            var started = false
            if client == nil {
                client = try BackgroundPlayer.connect(global, start: true)
                started = true
            }
            guard var client else { return }
            let terminal = TerminalInfo.standardError()
            let progress = ProgressLine(terminal: terminal)
            var request = ControlRequest(.toggle(ItemSelector(item)))
            // A file or URL plays by itself, after the feed's items.
            if let source = try Self.source(item) {
                request.item = nil
                request.source = source
            }
            request.wait = noWait ? false : nil
            request.feed = named
            var status: ItemStatus?
            while status == nil {
                do {
                    status = try client.call(request, as: ItemStatus.self) { event in
                        if event.event == .progress { progress.show(event.status) }
                    }
                } catch let ControlClientError.refused(refusal) where refusal.code == .wrongFeed && replace && !started {
                    // --replace: the player of the other feed ends, and one of this feed starts.
                    try BackgroundPlayer.quit(client)
                    guard let fresh = try BackgroundPlayer.connect(global, start: true) else { return }
                    client = fresh
                    started = true
                } catch {
                    progress.clear()
                    if started, case let ControlClientError.refused(refusal) = error, [.noSuchItem, .invalidItem].contains(refusal.code) {
                        try? BackgroundPlayer.quit(client)
                    }
                    throw BackgroundPlayer.cliError(error)
                }
            }
            progress.clear()
            try Self.report(status!) { (try? client.call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self))?.display }
        }
    }

    /// The path or URL `argument` names, if it names one rather than an
    /// item: a path (absolute, ./, ~, or an existing file) must be a readable file.
    static func source(_ argument: String) throws(CLIError) -> String? {
        if let scheme = FeedDecoder.schemeOf(argument), scheme == "http" || scheme == "https" { return argument }
        // A number or an id is an item; a file in this folder counts only when
        // its name says media (song.mp3), so "3" is always item 3.
        let looksLikePath = argument.hasPrefix("/") || argument.hasPrefix(".") || argument.hasPrefix("~") || argument.contains("/")
        let namesMedia = MediaKind.guess(fromExtension: (argument as NSString).pathExtension) != nil && access(argument, F_OK) == 0
        guard looksLikePath || namesMedia else { return nil }
        let path = absolutePath(argument)
        guard access(path, F_OK) == 0 else { throw CLIError("file not found: \(path) (check the path)", exitCode: .noInput) }
        guard LocalFile.isReadable(path) else { throw CLIError("\(path) is not a readable media file (a folder, a FIFO or unreadable)", exitCode: .noInput) }
        return path
    }

    /// Prints the item's new state, or fails with its error. `display` asks
    /// the daemon why it shows no pictures (nil: it shows them).
    static func report(_ status: ItemStatus, display: () -> String?) throws(CLIError) {
        if status.state == .failed {
            throw CLIError("item \(status.item) \"\(status.title)\": \(status.error ?? "playback failed")", exitCode: .failure)
        }
        // Not print: it casts its argument at run time (see QuickToggle).
        let line = StatusText.line(status) + "\n"
        StandardStream.output(Array(line.utf8))
        // A video in a background player with no display: its sound only. Say so, and how to watch.
        if status.kind == .video, [.playing, .downloading, .buffering].contains(status.state), let problem = display() {
            StandardStream.error("mediaplay: the background player shows no pictures: \(problem); it plays the sound (to watch here: mediaplay play \(status.item))\n")
        }
    }
}

/// Download progress on stderr while `toggle` waits: a spinner line redrawn
/// in place on a terminal, else one line when the download starts.
final class ProgressLine {
    private let terminal: TerminalInfo
    private let region: LiveRegion?
    private var tick = 0
    private var lastDraw = Date.distantPast
    private var announced = false

    init(terminal: TerminalInfo) {
        self.terminal = terminal
        region = terminal.animates ? LiveRegion(width: terminal.width) : nil
    }

    func show(_ status: ItemStatus) {
        guard let region else {
            if !announced {
                announced = true
                StandardStream.error("mediaplay: downloading item \(status.item) \"\(DisplayWidth.escaped(status.title))\" before playing it\n")
            }
            return
        }
        // At most ~12 redraws a second.
        guard Date().timeIntervalSince(lastDraw) >= 0.08 else { return }
        lastDraw = Date()
        tick += 1
        let percent = status.progress.map { " \(Percent.text($0))" } ?? ""
        region.draw(["\(Spinner.frame(tick)) downloading \(status.item) \"\(status.title)\"\(percent)"])
    }

    func clear() {
        region?.draw([])
    }
}
