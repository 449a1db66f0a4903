import Synchronization

/// How long a one-shot fetch (a feed, a playlist, a chapters file, an OPML)
/// may take in all: a server that trickles is given up on at this deadline
/// (`[network] timeout` in config.toml), where libcurl's stall check alone
/// waits as long as a byte comes every half minute. Set once, as a program
/// starts; media downloads have no deadline (a large file takes long) but a
/// minimum rate (`CacheConfiguration`).
public enum NetworkLimits {
    public static let defaultTimeout = 30
    /// The range `[network] timeout` takes, in seconds.
    public static let timeoutRange = 1...3600

    private static let current = Atomic<Int>(defaultTimeout)

    /// Seconds a one-shot fetch may take.
    public static var timeout: Int { scoped ?? current.load(ordering: .relaxed) }

    /// The timeout of a command run inside another process (a test's
    /// in-process run), over the process's own.
    @TaskLocal public static var scoped: Int?

    /// `seconds` within the range `[network] timeout` takes.
    public static func bounded(_ seconds: Int) -> Int {
        min(max(seconds, timeoutRange.lowerBound), timeoutRange.upperBound)
    }

    public static func set(timeout seconds: Int) {
        current.store(bounded(seconds), ordering: .relaxed)
    }
}
