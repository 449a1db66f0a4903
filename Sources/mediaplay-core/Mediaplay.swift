import ArgumentParser
import CLinux
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

@main
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

    static func main() async {
        StandardStream.reserveStandardDescriptors()
        // A reader gone from a pipe is a failed write (ignored on stderr,
        // an error on a listing), not the end of a playback or the daemon.
        signal(SIGPIPE, SIG_IGN)
        let config = LoadedConfig.loadOrExit()
        var defaults: ConfiguredDefaults.Values = .init(
            feed: config.feed, cacheFolder: config.cacheFolder, maxSize: config.maxSize, feeds: config.feeds,
            audio: config.audioSettings(kept: nil), playlist: config.playlistMode(kept: nil), measureLoudness: config.measureLoudness ?? true
        )
        defaults.logins = config.feedLogins
        ConfiguredDefaults.set(defaults)
        if let seconds = config.networkTimeout { NetworkLimits.set(timeout: seconds) }
        // A folder's files are probed as it loads (their track tags order
        // its albums), and kept in the cache's index for the next list.
        FeedLoading.useDetails { items, cacheDirectory in
            let folder = cacheDirectory.flatMap { try? CacheFolder(directory: $0) }
            return ItemDetails.lookup(items, folder: folder)
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
            await main(["browse"])
            return
        }
        let arguments = CommandLine.arguments
        if arguments.count > 1 {
            let names = configuration.subcommands.compactMap { command in command.configuration.commandName }
            if let message = UnknownCommand.message(for: arguments[1], commands: names) {
                StandardStream.error("mediaplay: \(DisplayWidth.escaped(message))\n")
                Foundation.exit(SysExit.usage.rawValue)
            }
        }
        await main(nil)
    }
}
