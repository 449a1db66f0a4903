import ArgumentParser
import Foundation
import MediaListing
import MediaplayCommandLine
import MediaCache
import MediaEngine
import MediaFeed
import MediaModel
import MediaSession
import MediaServers
import MediaTerminal
import MediaTerminalVideo
import MediaCacheCommands
import MediaConfig
import MediaFeedLoading
import MediaInterfaces
import MediaWiring
import MediaplayCommon
import MediaState

struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play an item, files, folders, playlists or URLs in the foreground.",
        discussion: """
            Plays to the audio device and a video window (SDL); an image shows in a \
            window until you close it. Where there is no window (SSH, a console), \
            video and images show in the terminal (--vo auto; --vo terminal forces \
            it, --vo window the window, --vo none no pictures), drawn as kitty or \
            sixel graphics or colour blocks (--images). A remote audio or video item plays while it \
            downloads into the cache (on a slow link it buffers, then goes on by \
            itself); a remote picture is downloaded first, with progress. --audio-out and --video-out record what is played \
            instead: a WAV file (s16, the stream's own rate and channels) and one line \
            per frame with its time and the MD5 of the picture.

            On a terminal (and in the window): each key's change shows for two \
            seconds on the status line and in the window's title (Volume 80 %, \
            Subtitles 2/2 (en), Sub delay +0.1 s, Chapter 3/5: Title); the status \
            line shows the artist and album when known, the chapter, and 3/12 in a \
            list. Space pauses and resumes, left/right seek 5 s, 9/0 turn the \
            volume down/up, m mutes, [/] slow down and speed up (backspace: 1×), </> \
            play the feed's previous/next item, q quits (the same keys work in the window). --volume 50 halves every sample, as \
            ffmpeg's volume filter does; --speed 1.5 plays half again as fast, the pitch kept. \
            Loudness is evened between items (--loudness on): by a file's ReplayGain tags, \
            else by its loudness as measured in the background, to -18 LUFS; G cycles it. \
            --af adds your own libavfilter chain. Subtitles show (the file's own, \
            movie.srt or movie.en.srt beside it, --sub-file): drawn into the window \
            and --video-out by libass, as text under the picture in the terminal; \
            --sid, --slang, --aid and --alang choose tracks, v shows or hides them, j \
            and # step through subtitle and audio tracks, z/Z move them 0.1 s. Off a terminal, prints one line per state \
            change. No audio device: plays silently in real time. Neither a display \
            nor a terminal: plays the audio of a video.

            Several files, a folder (its media files, by disc and track where their \
            tags say, else in path order; see docs/FEED.md) or a playlist (M3U, PLS, a \
            podcast feed) play one after the other; < and > move between them. A \
            file that cannot be read or decoded, a missing entry or a failed download \
            gets one line naming it, and the rest plays on (< and > step over it); \
            play then ends with the worst failure's exit status: 65 a file that \
            cannot be decoded, 66 a missing file, 69 a failed download.

            A web page's media plays through yt-dlp, as in mpv: its title, chapters and \
            subtitles become the item's, and its file is downloaded once like any other \
            (--ytdl-format, --no-ytdl; docs/FEED.md). An HLS (.m3u8) or DASH (.mpd) URL \
            plays from its manifest, the variant chosen by [playback] max-height and \
            max-bitrate.

            An item starts where it was left, in play or any other player of yours \
            (the background player, browse), unless it was nearly finished; one \
            played to its end, or into its last seconds, is marked played (list \
            shows ✓). --start, and a seek, win; config.toml's start = "beginning" \
            starts every item at the top. A recording (--audio-out, --video-out) \
            starts at the top and keeps nothing.

            Examples:
              mediaplay play 2
              mediaplay play ~/Music/song.flac
              mediaplay play ~/Music/Album intro.mp3 radio.pls
              mediaplay play 5 --start 1:30
              mediaplay play film.mkv --slang de --aid 2
              mediaplay play 1 --audio-out out.wav --untimed
              mediaplay play clip.mp4 --vo terminal
              mediaplay play song.flac --replaygain album
              mediaplay play talk.mp3 --af 'equalizer=f=100:t=q:w=1:g=-6'
              mediaplay play https://example.org/talks/42 --ytdl-format bestaudio
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("An item number or id from 'mediaplay list', or files, folders, playlists and http(s) URLs, played in turn.", valueName: "n|id|path|url"))
    var targets: [String]

    private var target: String { targets.joined(separator: " ") }

    @OptionGroup var recording: RecordingOptions

    @OptionGroup(title: "Loudness and filters") var loudness: LoudnessFlags
    @OptionGroup(title: "Tracks and subtitles") var tracks: TrackFlags
    @OptionGroup(title: "Web pages") var pages: PageOptions

    @Flag(name: .long, help: "Decode as fast as possible (only with --audio-out/--video-out or --no-audio).")
    var untimed = false

    @Flag(name: .customLong("no-audio"), help: "Do not play the audio.")
    var noAudio = false

    @Flag(name: .customLong("no-video"), help: "Do not play the video (the same as --vo none).")
    var noVideo = false

    /// Where pictures go.
    enum VideoOutput: String, ExpressibleByArgument, CaseIterable {
        case auto, window, terminal, none
    }

    @Option(name: .customLong("vo"), help: ArgumentHelp("Pictures in a window, in the terminal, or none; auto: a window where there is a display, else the terminal when it is one.", valueName: "auto|window|terminal|none"))
    var voOption: VideoOutput?

    @Option(name: .customLong("images"), help: ArgumentHelp("Terminal pictures as kitty, sixel or blocks (default: what the terminal supports).", valueName: "mode"))
    var imagesOption: ImageMode?

    @Option(name: .long, help: ArgumentHelp("Start at this time: seconds (90), M:SS (1:30) or H:MM:SS (default: where it was left).", valueName: "time"))
    var start: TimeValue?

    @Option(name: .customLong("volume"), help: ArgumentHelp("Volume in percent, 0–150 (a linear gain: 50 halves every sample).", valueName: "percent"))
    var volumeOption: Int?

    @Flag(name: .customLong("mute"), inversion: .prefixedNo, help: "Start muted (m unmutes).")
    var muteOption: Bool?

    @Option(name: .customLong("speed"), help: ArgumentHelp("Speed, 0.25–4, with the pitch kept ([ and ] change it, backspace resets).", valueName: "x"))
    var speedOption: Double?

    // The command line, else config.toml's [playback] (not for a recording,
    // which takes only what its command line says: it stays comparable
    // with ffmpeg's decoding), else the built-in default.
    private var recordsOnly: Bool { recording.audioOut != nil || recording.videoOut != nil }
    private var config: Config { recordsOnly ? Config() : LoadedConfig.current }
    var vo: VideoOutput { voOption ?? config.videoOutput.flatMap(VideoOutput.init(rawValue:)) ?? .auto }
    var images: ImageMode? { imagesOption ?? config.images.flatMap(ImageMode.init(rawValue:)) }
    var volume: Int { volumeOption ?? config.volume ?? 100 }
    var mute: Bool { muteOption ?? config.mute ?? false }
    var speed: Double { speedOption ?? config.speed ?? 1 }

    @Flag(name: .long, help: "At the end, print frames shown and dropped and the A/V drift (p50, p99, largest).")
    var stats = false

    func validate() throws {
        if untimed && recording.audioOut == nil && !noAudio {
            throw ValidationError("--untimed needs --audio-out FILE or --no-audio (a device plays in real time)")
        }
        if noAudio && recording.audioOut != nil { throw ValidationError("--no-audio and --audio-out contradict each other") }
        if (noVideo || vo == .none) && recording.videoOut != nil { throw ValidationError("--no-video and --video-out contradict each other") }
        if noVideo && vo != .auto && vo != .none { throw ValidationError("--no-video and --vo \(vo.rawValue) contradict each other") }
        if recording.videoOut != nil && vo == .window { throw ValidationError("--video-out records instead of a window: drop --vo window") }
        if images == ImageMode.none { throw ValidationError("--images takes kitty, sixel or blocks (--vo none plays no pictures)") }
        if targets.isEmpty { throw ValidationError("play takes an item, or files, folders, playlists or URLs") }
        if !AudioSettings.range.contains(volume) { throw ValidationError("--volume takes a percentage from 0 to 150") }
        if !AudioSettings.speeds.contains(speed) { throw ValidationError("--speed takes a factor from 0.25 to 4 (like 1.5)") }
    }

    func run() async throws {
        try await runReportingErrorsAsync {
            let (feed, item) = try resolveTarget()
            let display = DisplayOutcome()
            let audio: MediaPlayerFactory.Audio
            // One recording across every item played in turn.
            let audioRecord = try recording.audioFileSink().map(ContinuousAudioSink.init)
            if let audioRecord {
                audio = .sink { audioRecord }
            } else {
                audio = noAudio ? .off : .device
            }
            let videoRecord = try recording.frameHashSink().map(ContinuousVideoSink.init)
            let hashSink: (any VideoSink)? = videoRecord
            let screen = makeScreen(recording: hashSink != nil)
            defer { screen?.close() }
            let video: MediaPlayerFactory.Video
            switch (hashSink, noVideo ? .none : vo) {
            case let (hashSink?, .terminal): video = .sink { TerminalVideoSink(screen: screen!, rotation: $0, record: hashSink) }
            case let (hashSink?, _): video = .sink { _ in hashSink }
            case (nil, .none): video = .off
            case (nil, .window): video = .window()
            case (nil, .terminal):
                guard let screen else {
                    throw CLIError("--vo terminal needs a terminal on standard output (or record frames with --video-out)", exitCode: .usage)
                }
                video = .sink { TerminalVideoSink(screen: screen, rotation: $0) }
            case (nil, .auto):
                var terminal: (@Sendable (FeedItem, Int) -> any VideoSink)?
                if let screen { terminal = { _, rotation in TerminalVideoSink(screen: screen, rotation: rotation) } }
                video = .window(fallback: terminal)
            }
            // A recording measures nothing in the background and takes no
            // kept loudness: it applies only what its command line says.
            let recordsSound = recording.audioOut != nil
            let engine = try loudness.engine(clock: untimed ? .untimed : .realTime, audio: audio, video: video, config: config, exact: recordsSound, global: global, subtitleFiles: tracks.subtitlePaths) { shortfall in
                switch shortfall {
                case .noAudioDevice: Self.warn("\(shortfall)")
                case let .noDisplay(_, reason, audioOnly): display.missing(audioOnly ? "\(reason); playing the audio only" : nil)
                }
            }
            // A session of its own, with the command layer every front end uses.
            let store = feed.items.contains(where: { $0.source?.isRemote == true }) ? try CacheAccess.open(global) : nil
            // Files, folders and playlists play in turn; a feed's item alone.
            let inTurn = targets.count > 1 || Self.namesMedia(targets[0])
            // Where each item was left, and what was played, are the same
            // for every player of this user (the background player's
            // database); a recording keeps to its command line and touches neither.
            let state = recordsOnly ? nil : try? StateStore(path: BackgroundPlayer.stateDirectory(global) + "/positions.sqlite")
            let session = MediaSession(
                feed: feed, store: store, documents: HTTPDocuments(), positions: state, engine: engine,
                settings: loudness.settings(AudioSettings(volume: volume, muted: mute, speed: speed), recording: recordsSound, config: config),
                playlist: PlaylistMode(autoplay: inTurn && feed.items.count > 1), tracks: tracks.settings(config: config),
                // No picture will show: a page's audio alone, as mpv picks it.
                pages: pages.resolver(audioOnly: noVideo || (vo == .none && recording.videoOut == nil)),
                reports: ServerPlays.shared
            )
            // The keys of the terminal and the window: config.toml's [keys];
            // where items start: config.toml's `start` (a recording from the top).
            session.keymap = LoadedConfig.current.keymap
            session.resumesItems = !recordsOnly && config.resumes
            let outcome = await PlaybackView.run(
                session, item: item, from: start?.seconds, screen: screen, windowTitles: { engine.showInWindowTitles($0) },
                details: { ItemDetails.lookup([$0], cache: store).first ?? nil }
            ) { failed, error in
                Self.failureLine(error, of: failed, kept: session.failure(of: failed.key), cache: store, direct: targets, displayMissing: display.wasMissing, global: global)
            }
            let statistics = session.statistics(of: item.key)
            await session.shutdown()
            do {
                try audioRecord?.finish()
                try videoRecord?.finish()
            } catch {
                throw CLIError("cannot finish the recording: \(error)", exitCode: .ioError)
            }
            if stats, let statistics { printStatistics(statistics) }
            switch outcome {
            // Ctrl-C: 130, as a shell expects of a command it interrupted.
            case let .interrupted(number): throw ExitCode(128 + number)
            // Each failure was said in its line as it came: the worst one's status.
            case let .finished(worst?): throw ExitCode(worst.rawValue)
            case .finished(nil): break
            }
        }
    }

    /// A failure as its one line, naming its item once, and its exit status:
    /// 69 for a download (or no display for a picture), 66 for a missing
    /// file, 65 for one that cannot be decoded. `kept`: the item's failure
    /// as its status keeps it; `direct`: the targets given (a URL played
    /// directly is no feed's); `cache`: what a download left.
    static func failureLine(
        _ error: CommandError, of item: FeedItem, kept: CommandError?, cache: MediaCache?, direct targets: [String], displayMissing: Bool, global: GlobalOptions
    ) -> CLIError {
        let named = Failures.line(kept ?? error, of: item)
        switch (kept ?? error).code {
        case .forbidden:
            // The server refused the user (a password changed since its
            // library was kept): its one line, about the login, and exit 77.
            return CLIError(kept?.message ?? named, exitCode: .noPermission)
        case .downloadFailed:
            let url = item.source?.description ?? ""
            let fromFeed = !targets.contains(url)
            if named.contains("HTTP 404") || named.contains("HTTP 410") {
                return CLIError("\(named): the address is wrong (check \(fromFeed ? "the feed's URL for it" : "the URL"))", exitCode: .unavailable)
            }
            let retry = (fromFeed && !targets.contains(where: namesMedia) ? "mediaplay fetch \(item.position)" : "mediaplay play \(GlobalOptions.shellWord(url))") + global.givenOptions
            // What a download left is said only when it left something.
            var kept = false
            if case let .remote(address)? = item.source {
                switch cache?.status(for: address) {
                case let .partial(received, _)?, let .failed(_, received)?, let .downloading(received, _)?: kept = received > 0
                default: break
                }
            }
            return CLIError("\(named) (\(kept ? "the part downloaded is kept; " : "")retry: \(retry))", exitCode: .unavailable)
        case .noSuchItem:
            return CLIError(named, exitCode: .noInput)
        case .unavailable:
            return CLIError(named, exitCode: .unavailable)
        default:
            if displayMissing, item.kind != .audio {
                return CLIError("cannot show item \(item.position) \"\(item.title)\": no display (set DISPLAY, use --vo terminal, or record frames with --video-out)", exitCode: .unavailable)
            }
            return CLIError(named, exitCode: .dataError)
        }
    }

    /// The terminal pictures are drawn on: standard output when it is a
    /// terminal; for a recording (`--vo terminal --video-out`), a terminal of
    /// $COLUMNS × $LINES (80 × 24 when unset), nothing written to it.
    private func makeScreen(recording: Bool) -> TerminalScreen? {
        let environment = CommandContext.current.environment
        let terminal = TerminalInfo.standardOutput()
        let mode = images ?? ImageMode.detect(environment: environment)
        if recording {
            guard vo == .terminal else { return nil }
            let columns = environment["COLUMNS"].flatMap(Int.init).map { max($0, 2) } ?? 80
            let rows = environment["LINES"].flatMap(Int.init).map { max($0, 2) } ?? 24
            return TerminalScreen(mode: mode == .none ? .blocks : mode, colors: true, fixedSize: (columns, rows))
        }
        guard terminal.isTerminal, vo == .terminal || vo == .auto else { return nil }
        return TerminalScreen(mode: mode, colors: terminal.colors)
    }

    private func printStatistics(_ statistics: PlaybackStatistics) {
        let drift = statistics.drift
        func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }
        StandardStream.error("frames shown \(statistics.framesPresented), dropped \(statistics.framesDropped), A/V drift p50 \(ms(drift.percentile(0.5))) ms, p99 \(ms(drift.percentile(0.99))) ms, max \(ms(drift.maximum)) ms\n")
    }

    fileprivate static func warn(_ text: String) {
        StandardStream.error("mediaplay: \(DisplayWidth.escaped(text.redactingUserinfo))\n")
    }

    /// What to play and a title: a path as is, a URL or a feed item through
    /// the cache (played while it downloads; a picture is fetched whole).
    ///
    /// A local file must be a readable regular file: a FIFO or a device
    /// would block the reader forever (nothing ends a read of an idle pipe).
    static func checkPlayable(_ path: String) throws(CLIError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError("file not found: \(path) (check the path)", exitCode: .noInput)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = info.st_mode & S_IFMT == S_IFDIR ? "a folder" : info.st_mode & S_IFMT == S_IFIFO ? "a FIFO" : "a device or special file"
            throw CLIError("\(path) is \(what), not a media file (mediaplay plays regular files)", exitCode: .noInput)
        }
        guard access(path, R_OK) == 0 else {
            throw CLIError("cannot read \(path): \(String(cString: strerror(errno))) (check its permissions)", exitCode: .noInput)
        }
    }

    /// The feed and the item to play: a feed item by number or id, or the
    /// files, folders, playlists and URLs given, as one feed played in turn.
    private func resolveTarget() throws(CLIError) -> (Feed, FeedItem) {
        if targets.count == 1, !Self.namesMedia(targets[0]) {
            return try feedItem(targets[0])
        }
        var feeds: [Feed] = []
        for target in targets {
            feeds.append(try Self.feed(of: target, global: global))
        }
        let feed = Feed.joined(feeds, title: feeds.count == 1 ? feeds[0].title : "\(targets.count) items")
        for note in feed.notes { Self.warn("note: \(note)") }
        Listing.noteRepairs(of: feed, source: targets.joined(separator: " "))
        guard let first = feed.items.first(where: { $0.source != nil && $0.isValid }) else {
            throw CLIError("nothing to play in \(target): no media files", exitCode: .noInput)
        }
        return (feed, first)
    }

    /// Whether a target names media (a path or a URL) rather than a feed item.
    private static func namesMedia(_ target: String) -> Bool {
        if target.hasPrefix("/") || target.hasPrefix(".") || target.hasPrefix("~") || FileManager.default.fileExists(atPath: target) { return true }
        if let scheme = FeedDecoder.schemeOf(target), scheme == "http" || scheme == "https" { return true }
        return false
    }

    /// One target as a feed: a folder's media, a playlist's or feed's items,
    /// a media file or a URL alone.
    private static func feed(of target: String, global: GlobalOptions) throws(CLIError) -> Feed {
        if let scheme = FeedDecoder.schemeOf(target), scheme == "http" || scheme == "https" {
            guard let url = URL(string: target) else { throw CLIError("\"\(target)\" is not a valid URL", exitCode: .usage) }
            // A playlist or feed on the web (radio.pls, a podcast) lists items.
            // (An HLS playlist reads as one item, the stream.)
            if ["m3u", "m3u8", "pls", "xml", "rss", "atom", "json"].contains(url.pathExtension.lowercased()) {
                var options = global
                options.feed = target
                return try FeedLoading.load(options).feed
            }
            return Feed.single(.remote(url))
        }
        let path = absolutePath(target)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue || FeedDecoder.isFeedFile(path) {
            return try FeedLoading.load(target, cacheDirectory: global.cacheDirectory, announce: false).feed
        }
        try checkPlayable(path)
        // A file alone is called by its title tag, as in a folder.
        var single = Feed.single(.file(path))
        // (One file's probe, kept nowhere: a plain play makes no cache folder.)
        single.takeTitles(from: ItemDetails.lookup(single.items, folder: nil))
        return single
    }

    /// A feed item by number or id.
    private func feedItem(_ target: String) throws(CLIError) -> (Feed, FeedItem) {
        let loaded = try FeedLoading.load(global)
        Listing.noteRepairs(of: loaded.feed, source: loaded.source)
        // Named like a file (a.mp3, dir/a.mp3) and neither a file nor an item: a missing file.
        if loaded.feed.item(matching: target) == nil, target.contains("/") || !(target as NSString).pathExtension.isEmpty {
            throw CLIError("file not found: \(absolutePath(target)) (and no item has the id \"\(target)\"; check the path)", exitCode: .noInput)
        }
        guard let found = try ItemSelection.resolve([target], in: loaded.feed).first else {
            throw CLIError("no item \"\(target)\"", exitCode: .noInput)
        }
        switch found.source {
        case let .file(path)?: try Self.checkPlayable(path)
        case .remote?: break
        case nil: throw CLIError("item \(found.position) \"\(found.title)\" is text only: it has no media to play", exitCode: .dataError)
        }
        return (loaded.feed, found)
    }
}

/// Whether the display was missing when a window was wanted: warned once
/// when the audio plays alone, and turned into a clear error when there was
/// nothing else to play.
private final class DisplayOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var missingFlag = false

    var wasMissing: Bool { lock.withLock { missingFlag } }

    func missing(_ warning: String?) {
        lock.withLock { missingFlag = true }
        if let warning { StandardStream.error("mediaplay: \(DisplayWidth.escaped(warning.redactingUserinfo))\n") }
    }
}
