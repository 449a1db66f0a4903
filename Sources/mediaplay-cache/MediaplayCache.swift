import ArgumentParser
import Foundation
import MediaTerminal
import MediaCache
import MediaCacheCommands
import MediaConfig
import MediaPages
import MediaplayCommandLine
import MediaplayCommon

// The `mediaplay-cache` program: `mediaplay fetch` and `mediaplay cache`,
// which mediaplay hands here by exec. It loads libcurl and SQLite but no
// FFmpeg or SDL, so a download starts within milliseconds (mediaplay-core
// has the same commands, for its --help).

@main
struct MediaplayCache: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediaplay",
        version: mediaplayVersion,
        subcommands: [FetchCommand.self, CacheCommand.self]
    )

    static func main() async {
        StandardStream.reserveStandardDescriptors()
        let config = LoadedConfig.loadOrExit()
        var defaults: ConfiguredDefaults.Values = .init(
            feed: config.feed, cacheFolder: config.cacheFolder, maxSize: config.maxSize, feeds: config.feeds,
            audio: config.audioSettings(kept: nil), playlist: config.playlistMode(kept: nil), measureLoudness: config.measureLoudness ?? true
        )
        defaults.logins = config.feedLogins
        ConfiguredDefaults.set(defaults)
        if let seconds = config.networkTimeout { NetworkLimits.set(timeout: seconds) }
        // `fetch` of a web page: its media, found by yt-dlp as `play` finds it.
        if config.ytdl != false { FetchCommand.usePages(YTDL(program: config.ytdlPath ?? "yt-dlp", format: config.ytdlFormat ?? YTDL.videoFormat, socketTimeout: config.networkTimeout)) }
        // A write over a file size limit must fail with EFBIG (reported as a
        // full disk, partial file kept), not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        await main(nil)
    }
}
