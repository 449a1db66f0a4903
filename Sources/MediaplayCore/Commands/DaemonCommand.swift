import ArgumentParser
import Foundation
import MediaListing
import MediaModel
import MediaState
import MediaTerminal
import MediaplayCommandLine
import Logging
import MediaCache
import MediaControl
import MediaDaemon
import MediaEngine
import MediaFeed
import MediaMPD
import MediaMPRIS
import MediaSession
import MediaServers
import MediaConfig
import MediaFeedLoading
import MediaWiring
import MediaplayCommon

struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the background player that toggle, status, stop and quit talk to.",
        discussion: """
            'mediaplay toggle' starts it when it is not running, so you rarely need this. \
            It serves JSON lines on RUNTIME-DIR/mediaplay.sock (see docs/PROTOCOL.md), \
            one background player per runtime directory, for your user only. It logs to \
            $XDG_STATE_HOME/mediaplay/daemon.log and keeps resume positions in \
            $XDG_STATE_HOME/mediaplay/positions.sqlite. 'mediaplay quit', SIGTERM or \
            SIGINT end it cleanly (positions saved, socket removed). Started by systemd's \
            mediaplay.socket (socket activation), it takes its socket from systemd, which keeps \
            it and starts the player again on the next client: systemctl --user enable --now \
            mediaplay.socket.

            Examples:
              mediaplay daemon                  start it in the background
              mediaplay daemon --foreground     run it in this terminal (^C ends it)
              mediaplay daemon --mpd 127.0.0.1:6600
                                                also answer MPD's protocol there, for mpc,
                                                ncmpcpp and phone apps (docs/PROTOCOL.md)
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Run in this process instead of starting a detached one.")
    var foreground = false

    @Option(name: .customLong("save-interval"), help: ArgumentHelp("Seconds of playback between saves of the resume position.", valueName: "seconds"))
    var saveInterval = 5.0

    @Option(
        name: .customLong("mpd"),
        help: ArgumentHelp(
            "Also answer MPD's protocol on this address (127.0.0.1:6600; [mpd] listen in config.toml). Other than loopback, [mpd] password is required.",
            valueName: "host:port"
        )
    )
    var mpd: String?

    @Option(name: .customLong("lock-fd"), help: ArgumentHelp("The runtime folder's lock, taken for it by the client that starts it.", valueName: "descriptor", visibility: .hidden))
    var lockDescriptor: Int32?

    func validate() throws {
        if !(saveInterval > 0) || !saveInterval.isFinite { throw ValidationError("--save-interval takes a number of seconds above 0") }
    }

    func run() async throws {
        try await runReportingErrorsAsync {
            let feed = try BackgroundPlayer.feedIdentity(global)
            // Checked here, so that a refused address is said before anything starts.
            let mpdOptions = try await Self.mpdOptions(option: mpd, config: LoadedConfig.current)
            if foreground {
                try await serve(feed: feed, mpd: mpdOptions)
            } else {
                try startDetached(feed: feed)
            }
        }
    }

    private func startDetached(feed: String) throws(CLIError) {
        if let client = try BackgroundPlayer.connect(global, start: false),
           let status = try? client.call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self) {
            StandardStream.error("mediaplay: the background player already runs (pid \(status.pid), feed \(DisplayWidth.escaped(status.feed)))\n")
            return
        }
        guard let client = try BackgroundPlayer.connect(global, start: true, daemonOptions: ["--save-interval", String(saveInterval)] + (mpd.map { ["--mpd", $0] } ?? [])) else { return }
        let status = try? client.call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self)
        StandardStream.error("mediaplay: background player started (pid \(status.map { String($0.pid) } ?? "?"), log: \(BackgroundPlayer.logPath(global)))\n")
    }

    /// MPRIS on the session bus, so media keys and `playerctl` reach the
    /// player; without a session bus (a server, SSH) it is off, said once in the log.
    private static func publishOnTheSessionBus(
        _ session: MediaSession, cache: MediaCache?, daemon: Daemon, logger: Logger,
        details: @escaping @Sendable (FeedItem) -> MediaDetails?, followFeed: @escaping @Sendable () -> Void
    ) -> MPRISService? {
        do {
            let service = try MPRISService(
                session: session,
                artwork: { item in
                    // The item's picture, once it is a file here.
                    switch item.thumbnail ?? (item.kind == .image ? item.source : nil) {
                    case let .file(path)?: return URL(fileURLWithPath: path).absoluteString
                    case let .remote(url)?: return cache?.cachedFile(for: url).map { URL(fileURLWithPath: $0).absoluteString }
                    case nil: return nil
                    }
                },
                details: details,
                followFeed: followFeed,
                quit: { daemon.quit() },
                lost: { logger.warning("MPRIS off: \($0)") }
            )
            logger.info("MPRIS: on the session bus as \(service.name)")
            return service
        } catch {
            logger.info("MPRIS off: \(error)")
            return nil
        }
    }

    private func serve(feed: String, mpd: MPDServer.Options?) async throws(CLIError) {
        let logPath = BackgroundPlayer.logPath(global)
        let logger = Logger(label: "mediaplay.daemon") { _ in FileLogHandler(path: logPath) }
        let daemon = Daemon(paths: BackgroundPlayer.paths(global), logger: logger)
        do {
            try daemon.claim(heldLock: lockDescriptor)
        } catch {
            throw CLIError(error.message, exitCode: .unavailable)
        }
        let loaded = try FeedLoading.load(feed, cacheDirectory: global.cacheDirectory)
        // Without a usable cache, local items still play (remote ones say why not).
        let cache: MediaCache?
        do {
            cache = try CacheAccess.open(global)
        } catch {
            cache = nil
            logger.warning("no download cache: \(error); only local items can play")
        }
        let positionsPath = BackgroundPlayer.stateDirectory(global) + "/positions.sqlite"
        let positions: StateStore
        do {
            positions = try StateStore(path: positionsPath)
            if let aside = positions.recoveredFrom {
                let notice = "the resume positions were damaged and have been started anew (the old file is kept at \(aside))"
                logger.warning("\(notice)")
                StandardStream.error("mediaplay: \(notice)\n")
            }
            // Positions and settings are saved in the background, where a
            // failure reaches no one: a store that cannot save is said now.
            try positions.checkWritable()
        } catch let error as StateStoreError {
            throw CLIError(error.description, exitCode: .ioError)
        } catch {
            throw CLIError("cannot open the resume positions at \(positionsPath): \(error)", exitCode: .ioError)
        }
        let config = LoadedConfig.current
        let engine = MediaPlayerFactory(
            loudness: config.loudnessOptions, filters: try LoudnessFlags.configuredFilters(config), measured: MeasuredLoudness.lookup(feed: feed, cacheDirectory: global.cacheDirectory, folder: cache?.folder),
            variantLimits: PageOptions.variantLimits(config)
        ) { logger.warning("\($0)") }
        let session = MediaSession(
            feed: loaded.feed, store: cache, documents: HTTPDocuments(), positions: positions, engine: engine,
            settings: LoadedConfig.current.audioSettings(kept: positions.audioSettings()),
            playlist: LoadedConfig.current.playlistMode(kept: positions.playlistMode()), tracks: config.trackSettings,
            // Without a display no window opens: a page's audio alone, as mpv picks it.
            pages: PageOptions.resolver(audioOnly: !PageOptions.hasDisplay, config: config),
            problems: { logger.warning("\($0)") }, reports: ServerPlays.shared
        )
        // The keys of its windows, and where items start: config.toml's.
        session.keymap = LoadedConfig.current.keymap
        session.resumesItems = LoadedConfig.current.resumes
        let follower = FeedFollower(location: feed, cacheDirectory: global.cacheDirectory, cache: cache)
        // An item's duration, tags and format, probed once per file (MPRIS
        // metadata and status).
        let details: @Sendable (FeedItem) -> MediaDetails? = { item in ItemDetails.lookup([item], cache: cache).first ?? nil }
        // One follower of the feed file for the socket and MPRIS alike.
        let following = FeedFollowing(session: session) { follower.changedFeed() }
        let mpris = Self.publishOnTheSessionBus(session, cache: cache, daemon: daemon, logger: logger, details: details, followFeed: following.follow)
        let mpdServer = try mpd.map { options throws(CLIError) in try Self.startMPD(options, session: session, cache: cache, logger: logger, followFeed: following.follow) }
        // Volume, mute, speed and the playlist's modes are kept for the next
        // start, whoever changed them (MPRIS hears them on its own).
        let keeper = StateStore.keep(session.settingsEvents(), in: positions)
        defer {
            keeper.cancel()
            mpris?.stop()
            mpdServer?.stop()
        }
        StandardStream.error("mediaplay: background player listening on \(daemon.paths.socket) (log: \(logPath))\n")
        do {
            try await daemon.serve(
                session: session, feed: feed, version: Mediaplay.version, saveInterval: saveInterval, followFeed: following.follow, displayProblem: { SDLVideoSink.displayProblem },
                details: details, probe: { ItemDetails.lookup($0, folder: nil) }
            )
        } catch {
            throw CLIError("cannot listen on \(daemon.paths.socket): \(error)", exitCode: .unavailable)
        }
    }
}
