import ArgumentParser
import MediaCacheFolder
import MediaConfig
import MediaEngine
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaplayCommandLine
import MediaSession
import MediaWiring
import MediaplayCommon

/// Loudness normalisation and the user's audio filters, shared by `play` and
/// `script`: the command line, else config.toml's [playback], else the
/// defaults. A recording (--audio-out) keeps ffmpeg's plain decoding unless
/// its own command line asks for a gain or filters.
struct LoudnessFlags: ParsableArguments {
    @Option(name: .customLong("loudness"), help: ArgumentHelp("Even loudness between items: on (tags, else the measured loudness), tags, measured or off.", valueName: "mode"))
    var mode: LoudnessMode?

    @Option(name: .customLong("replaygain"), help: ArgumentHelp("Which ReplayGain tag: track, album, auto (album while items play on in order) or off.", valueName: "mode"))
    var replayGain: ReplayGainMode?

    @Option(name: .customLong("replaygain-preamp"), help: ArgumentHelp("dB added to ReplayGain tags' gain, -15 to 15.", valueName: "dB"))
    var preamp: Double?

    @Flag(name: .customLong("replaygain-clip"), inversion: .prefixedNo, help: "Lower the gain so the peak never clips (default: on).")
    var preventClipping: Bool?

    @Option(name: .customLong("loudness-target"), help: ArgumentHelp("LUFS a measured file is brought to, -70 to 0 (default -18).", valueName: "LUFS"))
    var target: Double?

    @Option(name: .customLong("af"), help: ArgumentHelp("A libavfilter audio chain after the decoder, as ffmpeg -af takes it.", valueName: "chain"))
    var filters: String?

    /// Whether this command line asked for a gain (a recording then applies it).
    var asksForGain: Bool { mode != nil || replayGain != nil }

    func validate() throws {
        if let preamp, !LoudnessOptions.preamps.contains(preamp) { throw ValidationError("--replaygain-preamp takes dB from -15 to 15") }
        if let target, !LoudnessOptions.targets.contains(target) { throw ValidationError("--loudness-target takes LUFS from -70 to 0 (like -18)") }
        if let filters, let problem = AudioFilterCheck.problem(filters) { throw ValidationError("--af: \(problem)") }
    }

    /// The mode and tag choice a player starts with. A recording: only
    /// what its command line says (--replaygain alone means its tags).
    func settings(_ base: AudioSettings, recording: Bool, config: Config) -> AudioSettings {
        var settings = base
        if recording {
            settings.loudness = mode ?? (replayGain != nil ? .tags : .off)
            settings.replayGain = replayGain ?? .auto
        } else {
            settings.loudness = mode ?? config.loudness ?? .on
            settings.replayGain = replayGain ?? config.replayGain ?? .auto
        }
        return settings
    }

    func options(config: Config) -> LoudnessOptions {
        let configured = config.loudnessOptions
        return LoudnessOptions(preamp: preamp ?? configured.preamp, preventClipping: preventClipping ?? configured.preventClipping, target: target ?? configured.target)
    }

    /// --af, else config.toml's `af` (checked here: config.toml's reader
    /// has no libavfilter, and only a command that plays needs to load it).
    func chain(config: Config) throws(CLIError) -> String? {
        if let filters { return filters }
        return try Self.configuredFilters(config)
    }

    /// config.toml's `af`, checked by libavfilter: a chain it refuses is a
    /// mistake in the file (exit 78), named like any other.
    static func configuredFilters(_ config: Config) throws(CLIError) -> String? {
        guard let chain = config.audioFilters else { return nil }
        if let problem = AudioFilterCheck.problem(chain) {
            throw CLIError("\(config.path ?? "config.toml"): af: \(problem) (fix it, or move it aside; see docs/CONFIG.md)", exitCode: .config)
        }
        return chain
    }

    /// The engine with these loudness options and filters; `exact` (a
    /// recording): no measured gain unless this command line asks for one.
    func engine(
        clock: PlaybackClock, audio: MediaPlayerFactory.Audio, video: MediaPlayerFactory.Video, config: Config, exact: Bool, global: GlobalOptions,
        subtitleFiles: [String] = [], report: @escaping @Sendable (MediaPlayerFactory.Shortfall) -> Void
    ) throws(CLIError) -> MediaPlayerFactory {
        var measured: @Sendable (FeedItem) -> Loudness? = { _ in nil }
        if !exact || asksForGain { measured = MeasuredLoudness.lookup(global) }
        return MediaPlayerFactory(
            clock: clock, audio: audio, video: video, loudness: options(config: config), filters: try chain(config: config), measured: measured,
            subtitleFiles: subtitleFiles, variantLimits: PageOptions.variantLimits(), report: report
        )
    }
}

extension LoudnessMode: ExpressibleByArgument {}
extension ReplayGainMode: ExpressibleByArgument {}

/// An item's measured loudness for a player's start, from the cache's
/// index; a file not measured yet is measured in the background (it plays
/// at its tagged or unchanged level now, and takes its gain from its next
/// start).
enum MeasuredLoudness {
    static func lookup(_ global: GlobalOptions) -> @Sendable (FeedItem) -> Loudness? {
        lookup(feed: global.feed, cacheDirectory: global.cacheDirectory)
    }

    /// `folder`: the cache folder when the caller has it open already.
    static func lookup(feed: String?, cacheDirectory: String, folder: CacheFolder? = nil) -> @Sendable (FeedItem) -> Loudness? {
        let stored = folder.map(LoudnessMeasuring.lookup(folder:)) ?? LoudnessMeasuring.lookup(cacheDirectory: cacheDirectory)
        return { item in
            let found = stored(item)
            if found == nil { LoudnessLauncher.start(feed: feed, cacheDirectory: cacheDirectory, targets: [LoudnessLauncher.target(of: item)]) }
            return found
        }
    }
}
