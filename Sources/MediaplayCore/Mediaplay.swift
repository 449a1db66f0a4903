import ArgumentParser
import CLinux
import CMediaLoader
import Foundation
import MediaplayCommandLine
import MediaTerminal
import MediaCache
import MediaCacheCommands
import MediaConfig
import MediaCacheFolder
import MediaFeedLoading
import MediaSession
import MediaWiring
import MediaplayCommon
import MediaListing
import MediaModel

/// mediaplay-core's commands; `MediaplayProgram` runs them.
struct Mediaplay: AsyncParsableCommand {
    static let version = mediaplayVersion

    static let configuration = CommandConfiguration(
        commandName: "mediaplay",
        abstract: "Browse and play your media from the terminal: feeds, podcasts, playlists, folders.",
        discussion: """
            A feed is a JSON list of pictures, audio and video, a podcast (RSS, Atom, \
            JSON Feed), an M3U or PLS playlist, or a folder; see docs/FEED.md. \
            Without --feed, mediaplay reads $MEDIAPLAY_FEED, else the media.json \
            bundled with it (its first items ship with mediaplay and play offline).

            Examples:
              mediaplay                      browse the feed (on a terminal)
              mediaplay list                 the bundled feed as a table
              mediaplay play 1               play item 1 here (space pauses)
              mediaplay play ~/Music         play a folder, file or playlist
              mediaplay list --json          the same, for scripts
              mediaplay list --feed URL      a podcast or another feed
              mediaplay toggle 2             play item 2 in the background
              mediaplay status               what the background player does
              mediaplay fetch 1 3            download items 1 and 3
              mediaplay cache size           how much the cache holds

            Shell completion (bash, zsh or fish):
              mediaplay --generate-completion-script bash
            """,
        version: version,
        subcommands: [
            ListCommand.self, BrowseCommand.self, PlayCommand.self, ToggleCommand.self, StatusCommand.self, StopCommand.self, SeekCommand.self, VolumeCommand.self, MuteCommand.self, SpeedCommand.self,
            NextCommand.self, PrevCommand.self, RepeatCommand.self, ShuffleCommand.self, AutoplayCommand.self, SleepCommand.self, ChapterCommand.self, LoudnessCommand.self, SubtitleCommand.self, AudioTrackCommand.self, SubtitleDelayCommand.self, QuitCommand.self,
            MarkCommand.self, MeasureCommand.self, FeedsCommand.self, OpenCommand.self, ScriptCommand.self, FetchCommand.self, CacheCommand.self, ConfigCommand.self, DaemonCommand.self,
        ],
        defaultSubcommand: ListCommand.self
    )
}

/// The `mediaplay-core` program, and the same commands run inside another
/// process (a test) with the streams and environment it gives
/// (`CommandContext`): one entry, the exit status its result.
public enum MediaplayProgram {
    /// mediaplay-core's `main`: the process's own streams, environment and
    /// config; exits with the command's status.
    public static func main() async {
        StandardStream.reserveStandardDescriptors()
        // A reader gone from a pipe is a failed write (ignored on stderr,
        // an error on a listing), not the end of a playback or the daemon.
        signal(SIGPIPE, SIG_IGN)
        let config = LoadedConfig.loadOrExit()
        ConfiguredDefaults.set(defaults(config))
        if let seconds = config.networkTimeout { NetworkLimits.set(timeout: seconds) }
        FetchCommand.usePages(PageOptions.resolver(audioOnly: false, config: config))
        // A folder's files are probed as it loads (their track tags order
        // its albums), and kept in the cache's index for the next list.
        FeedLoading.useDetails(probedDetails)
        // A media library missing mid-session (a broken install) ends the
        // process: a full-screen view's terminal and stderr go back first.
        mp_media_on_missing {
            FullScreen.restoreBeforeExit()
            AsideStandardError.restoreBeforeExit()
        }
        // A write over a file size limit must fail with EFBIG (reported as a
        // full disk, partial file kept), not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        // Two malloc arenas, not glibc's 8 per core: each player's threads
        // took an arena of their own, and the free space left in each one
        // grew the background player by about 1 KB per window opened and
        // closed (docs/PERFORMANCE.md, "Daemon memory"). Playback's CPU and
        // peak memory measured the same.
        // (A user's own MALLOC_ARENA_MAX or GLIBC_TUNABLES wins.)
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_ARENA_MAX"] == nil && environment["GLIBC_TUNABLES"] == nil { _ = mp_limit_malloc_arenas(2) }
        // No arguments: browse on a terminal, the list anywhere else.
        if CommandLine.arguments.count == 1, FullScreen().isAvailable, !["", "dumb"].contains(environment["TERM"] ?? "") {
            await Mediaplay.main(["browse"])
            return
        }
        let arguments = CommandLine.arguments
        if arguments.count > 1, let message = unknownCommand(arguments[1]) {
            StandardStream.error("mediaplay: \(DisplayWidth.escaped(message))\n")
            Foundation.exit(SysExit.usage.rawValue)
        }
        if let list = quickList(Array(arguments.dropFirst())) {
            do {
                try list.run()
            } catch {
                Mediaplay.exit(withError: error)
            }
            return
        }
        await Mediaplay.main(nil)
    }

    /// `list` in the plain spellings the small client reads by hand
    /// (`QuickList.quickOptions`), run without ArgumentParser's reflection
    /// of every command: about 5 ms before a server's list asks for its
    /// first page. Anything else (help, another option, a typo) is nil and
    /// parsed properly.
    static func quickList(_ arguments: [String]) -> ListCommand? {
        guard arguments.first == "list", let options = QuickList.quickOptions(Array(arguments.dropFirst())) else { return nil }
        var command = ListCommand()
        command.options = options
        return command
    }

    /// `mediaplay ARGUMENTS` (the program's name left out) run in this
    /// process with `CommandContext.current`, as the installed programs
    /// would run it: the small client's quick toggle and quick list, its
    /// hand-off of `fetch` and `cache` to mediaplay-cache (which probes no
    /// file) and of the rest to mediaplay-core, each reading config.toml
    /// from the context's environment. Returns the exit status; what the
    /// program would print goes to the context's streams. (Browse on a
    /// terminal, signals and the exec itself are the real programs' alone.)
    public static func run(_ arguments: [String]) async -> Int32 {
        let argv = ["mediaplay"] + arguments
        let context = CommandContext.current
        // The small client (`mediaplay`, main.swift): with no config.toml,
        // a toggle or a local list may be served before any hand-off.
        let base = context.variable("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((context.variable("HOME") ?? "") + "/.config")
        if access(base + "/mediaplay/config.toml", F_OK) != 0 {
            if let status = QuickToggle.run(argv) { return status }
            if arguments.first == "list", let status = QuickList.run(Array(arguments.dropFirst())) { return status }
        }
        guard let config = LoadedConfig.load(context.environment, arguments: argv) else { return SysExit.config.rawValue }
        let cacheProgram = ["fetch", "cache"].contains(arguments.first ?? "")
        return await LoadedConfig.$scoped.withValue(config) {
            await ConfiguredDefaults.$scoped.withValue(defaults(config)) {
                await NetworkLimits.$scoped.withValue(config.networkTimeout.map(NetworkLimits.bounded) ?? NetworkLimits.defaultTimeout) {
                    await FeedLoading.$scopedDetails.withValue(cacheProgram ? FeedLoading.indexedDetails : probedDetails) {
                        if let first = arguments.first, let message = unknownCommand(first) {
                            StandardStream.error("mediaplay: \(DisplayWidth.escaped(message))\n")
                            return SysExit.usage.rawValue
                        }
                        return await parseAndRun(arguments)
                    }
                }
            }
        }
    }

    /// What ArgumentParser's `main` does, its exit turned into a status:
    /// help and version on stdout, an error's message on stderr.
    private static func parseAndRun(_ arguments: [String]) async -> Int32 {
        do {
            var command = try quickList(arguments) ?? Mediaplay.parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return ExitCode.success.rawValue
        } catch {
            let code = Mediaplay.exitCode(for: error)
            let message = Mediaplay.fullMessage(for: error)
            if !message.isEmpty {
                if code == .success {
                    StandardStream.line(message)
                } else {
                    StandardStream.error(message + "\n")
                }
            }
            return code.rawValue
        }
    }

    /// The message for a first word that names no command, or nil.
    private static func unknownCommand(_ word: String) -> String? {
        let names = Mediaplay.configuration.subcommands.compactMap { command in command.configuration.commandName }
        return UnknownCommand.message(for: word, commands: names)
    }

    private static func defaults(_ config: Config) -> ConfiguredDefaults.Values {
        var defaults: ConfiguredDefaults.Values = .init(
            feed: config.feed, cacheFolder: config.cacheFolder, maxSize: config.maxSize, feeds: config.feeds,
            audio: config.audioSettings(kept: nil), playlist: config.playlistMode(kept: nil), measureLoudness: config.measureLoudness ?? true
        )
        // Named servers' logins ([feeds.NAME] user and password).
        defaults.logins = config.feedLogins
        return defaults
    }

    /// mediaplay-core's files' details: probed where the index does not know them.
    private static let probedDetails: FeedLoading.DetailsLookup = { items, cacheDirectory in
        let folder = cacheDirectory.flatMap { try? CacheFolder.shared(directory: $0) }
        return ItemDetails.lookup(items, folder: folder)
    }
}
