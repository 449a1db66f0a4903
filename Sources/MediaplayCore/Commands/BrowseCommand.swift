import ArgumentParser
import Foundation
import Synchronization
import MediaListing
import MediaModel
import MediaState
import MediaBrowse
import MediaCache
import MediaFeed
import MediaSession
import MediaServers
import MediaTerminal
import MediaplayCommandLine
import MediaConfig
import MediaFeedLoading
import MediaWiring
import MediaplayCommon

struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse the feed in the terminal: a grid of cells with pictures, and details.",
        discussion: """
            Cells show each item's picture (images, and the thumbnails of audio and \
            video), title and state: a spinner while downloading, ▶ or ⏸ with the \
            position while playing. Only the pictures on screen (and a screen ahead) \
            are downloaded. When the background player runs (see 'mediaplay toggle'), \
            browse plays through it and playback goes on after you quit; otherwise it \
            plays in this process, and a video with no window to open plays in its \
            cell and in the details. 'mediaplay' with no arguments on a terminal opens \
            browse.

            Keys: arrows or hjkl move, PgUp/PgDn, Home/End, Enter or space plays or \
            pauses (an image opens its details), i details, 9/0 volume, m mute, [/] \
            speed (backspace: 1×), </> previous/next item, b/f seek 10 s, r re-reads \
            the feed, ? help, q or Esc quits, Ctrl-Z suspends. A mouse click selects a \
            cell.

            Pictures: kitty graphics or sixel where the terminal is known to have them \
            (from TERM, TERM_PROGRAM and KITTY_WINDOW_ID), colour half-blocks \
            otherwise, none on a dumb terminal; --images picks one. NO_COLOR draws \
            the blocks without colour.

            Examples:
              mediaplay browse
              mediaplay browse --images blocks --feed ~/my-feed.json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Pictures as kitty, sixel, blocks or none (default: what the terminal supports).", valueName: "mode"))
    var images: ImageMode?

    func run() async throws {
        try await runReportingErrorsAsync {
            let screen = FullScreen()
            guard screen.isAvailable else {
                throw CLIError("browse needs a terminal on its input and output (for a table use 'mediaplay list')", exitCode: .usage)
            }
            let environment = CommandContext.current.environment
            let location = try global.feedLocation()
            let cacheDirectory = global.cacheDirectory
            let loaded = try FeedLoading.load(location, cacheDirectory: cacheDirectory, announce: false)
            let cache = try CacheAccess.open(global)
            let relay = MessageRelay()
            let video = VideoRelay()
            let backend = try makeBackend(feed: loaded.feed, cache: cache, relay: relay, video: video)
            let terminal = TerminalInfo.standardOutput()
            let configured = LoadedConfig.current
            // A podcast client's marks, as `list` shows them.
            let state = try? StateStore(path: BackgroundPlayer.stateDirectory(global) + "/positions.sqlite")
            let options = BrowseApp.Options(
                imageMode: images ?? configured.images.flatMap(ImageMode.init(rawValue:)) ?? ImageMode.detect(environment: environment),
                colors: terminal.colors, keymap: configured.keymap,
                played: state?.playedURLs() ?? [], fresh: (try? state?.newItems(in: loaded.identity, ids: loaded.feed.items.map(\.id))) ?? []
            )
            let app = BrowseApp(
                feed: loaded.feed, offline: loaded.offlineNotice, cache: cache, backend: backend, relay: relay, video: video, options: options, screen: screen,
                details: loaded.details ?? []
            ) {
                let reloaded = try FeedLoading.load(location, cacheDirectory: cacheDirectory, announce: false)
                return (reloaded.feed, reloaded.offlineNotice, reloaded.details ?? [])
            }
            // Libraries (SDL, FFmpeg) write to stderr, which would scribble
            // over the screen: while it is shown, stderr goes to a log.
            let logPath = BackgroundPlayer.stateDirectory(global) + "/browse.log"
            let savedError = redirectStandardError(to: logPath)
            defer { restoreStandardError(savedError) }
            let status: Int32
            do {
                status = try await app.run()
            } catch {
                throw CLIError("cannot use the terminal: \(error)", exitCode: .ioError)
            }
            if status != 0 { throw ExitCode(status) }
        }
    }

    /// The background player when one runs for this feed, else a session
    /// here (its videos in a window, or where there is none in their cells).
    private func makeBackend(feed: Feed, cache: MediaCache, relay: MessageRelay, video: VideoRelay) throws(CLIError) -> any BrowsePlayback {
        let identity = try BackgroundPlayer.feedIdentity(global)
        if let daemon = DaemonBackend.connect(BackgroundPlayer.paths(global), feed: identity) { return daemon }
        let positionsPath = BackgroundPlayer.stateDirectory(global) + "/positions.sqlite"
        let positions = try? StateStore(path: positionsPath)
        // The background player's settings, so browse plays alike.
        let session = MediaSession(
            feed: feed, store: cache, positions: positions,
            engine: MediaPlayerFactory(
                video: .window(fallback: video.terminalSink), loudness: LoadedConfig.current.loudnessOptions, filters: try LoudnessFlags.configuredFilters(LoadedConfig.current),
                measured: MeasuredLoudness.lookup(global), variantLimits: PageOptions.variantLimits()
            ) { relay.post("\($0)") },
            settings: LoadedConfig.current.audioSettings(kept: positions?.audioSettings()),
            playlist: LoadedConfig.current.playlistMode(kept: positions?.playlistMode()), tracks: LoadedConfig.current.trackSettings,
            pages: PageOptions.resolver(audioOnly: false),
            reports: ServerPlays.shared
        )
        session.keymap = LoadedConfig.current.keymap
        session.resumesItems = LoadedConfig.current.resumes
        if let positions { _ = StateStore.keep(session.settingsEvents(), in: positions) }
        return SessionBackend(session: session)
    }
}

/// Points stderr at `path` (appending); returns the old stderr to restore.
private func redirectStandardError(to path: String) -> Int32 {
    try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    chmod((path as NSString).deletingLastPathComponent, 0o700)
    let log = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard log >= 0 else { return -1 }
    defer { close(log) }
    let saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
    AsideStandardError.keep(saved)
    dup2(log, STDERR_FILENO)
    return saved
}

private func restoreStandardError(_ saved: Int32) {
    guard saved >= 0 else { return }
    AsideStandardError.keep(-1)
    dup2(saved, STDERR_FILENO)
}

/// The terminal's stderr while browse writes its own to the log: put back
/// by a process that must end mid-session (a media library missing), so
/// its one line is seen.
enum AsideStandardError {
    private static let saved = Atomic<Int32>(-1)

    static func keep(_ descriptor: Int32) {
        saved.store(descriptor, ordering: .releasing)
    }

    /// From any thread: no locks, no allocation.
    static func restoreBeforeExit() {
        let descriptor = saved.exchange(-1, ordering: .acquiring)
        if descriptor >= 0 { dup2(descriptor, STDERR_FILENO) }
    }
}

extension ImageMode: ExpressibleByArgument {}
