import MediaCache
import MediaModel
import MediaplayCommon

/// One bound for a whole load of a server feed (its pings, its pages, a
/// description and every Browse): each call is given the time left, so a
/// slow server is one line within it, however many calls the load makes.
struct LoadDeadline: Sendable {
    /// Seconds a load may take: 15, or `[network] timeout` when set to
    /// something other than its default.
    static var seconds: Int {
        NetworkLimits.timeout == NetworkLimits.defaultTimeout ? 15 : NetworkLimits.timeout
    }

    let seconds: Int
    let end: Double
    let clock: any MediaClock

    init(seconds: Int = LoadDeadline.seconds, clock: any MediaClock = SystemClock.shared) {
        self.seconds = seconds
        self.clock = clock
        end = clock.now + Double(seconds)
    }

    /// Whole seconds left for the next call (at least 1); none left is the
    /// one line naming the server.
    func left(for server: String) throws(CLIError) -> Int {
        let left = end - clock.now
        guard left > 0 else {
            throw CLIError(
                "the server \(server) did not finish answering within \(seconds) s; a slow server can be given longer with [network] timeout in config.toml",
                exitCode: .unavailable
            )
        }
        return max(1, Int(left.rounded(.up)))
    }
}
