import Foundation
import MediaModel
import MediaControl
import MediaFeed
import Synchronization

/// Starts the loudness measurement of files in the background:
/// `mediaplay-core measure --background`, detached, at idle priority, so
/// listing, fetching or playing never waits for it. Off with
/// `measure-loudness = false` or MEDIAPLAY_MEASURE_LOUDNESS=0.
public enum LoudnessLauncher {
    /// What this process asked to measure already (a daemon asks once per item).
    private static let asked = Mutex<Set<[String]>>([])

    /// Measures the whole feed of `global` (nil targets) or these items and
    /// files: their files at hand not measured yet.
    public static func start(_ global: GlobalOptions, targets: [String]? = nil) {
        start(feed: global.feed, cacheDirectory: global.cacheDirectory, targets: targets)
    }

    /// The same for a feed option as given (nil: the default feed) and a cache.
    public static func start(feed: String?, cacheDirectory: String, targets: [String]? = nil) {
        guard isEnabled(CommandContext.current.environment), let program = measurerPath() else { return }
        var command = [program, "measure", "--background"]
        if let feed { command += ["--feed", feed] }
        command += ["--cache-dir", cacheDirectory]
        if let targets { command += ["--"] + targets } else { command.append("--all") }
        guard asked.withLock({ $0.insert(command).inserted }) else { return }
        DaemonLauncher.spawnQuietly(command)
    }

    /// An item's target for `measure`: its file, else its id in the feed.
    public static func target(of item: FeedItem) -> String {
        if case let .file(path)? = item.source { return path }
        return item.id
    }

    /// Whether any of these probed files has sound not measured yet.
    public static func anyUnmeasured(_ details: [MediaDetails?]) -> Bool {
        details.contains { $0.map { $0.sampleRate != nil && !$0.measured } ?? false }
    }

    public static func isEnabled(_ environment: [String: String]) -> Bool {
        if let value = environment["MEDIAPLAY_MEASURE_LOUDNESS"], ["0", "off", "false", "no"].contains(value.lowercased()) { return false }
        return ConfiguredDefaults.values.measureLoudness
    }

    /// mediaplay-core: this program, or beside it, or in PREFIX/libexec/mediaplay/.
    private static func measurerPath() -> String? {
        let running = runningExecutable()
        return running.hasSuffix("/mediaplay-core") ? running : helperPath("mediaplay-core")
    }
}
