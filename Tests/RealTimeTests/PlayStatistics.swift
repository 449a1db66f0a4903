/// The line `play --stats` prints at the end, read back:
/// `frames shown 600, dropped 0, A/V drift p50 0.2 ms, p99 0.9 ms, max 1.0 ms`.
struct PlayStatistics {
    var shown: Int
    var dropped: Int
    /// In milliseconds.
    var driftP50: Double
    var driftP99: Double
    var driftMax: Double

    /// The statistics line in `stderr`, nil when there is none or it does not read.
    init?(stderr: String) {
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("frames shown") }),
              let match = line.wholeMatch(of: /frames shown (\d+), dropped (\d+), A\/V drift p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms/),
              let shown = Int(match.1), let dropped = Int(match.2),
              let p50 = Double(match.3), let p99 = Double(match.4), let max = Double(match.5)
        else { return nil }
        (self.shown, self.dropped, driftP50, driftP99, driftMax) = (shown, dropped, p50, p99, max)
    }
}
