import Foundation
import MediaModel

/// Counters a playback keeps, for `--stats` and the benchmarks.
public struct PlaybackStatistics: Sendable {
    public var framesPresented = 0
    /// Frames decoded but skipped because they were late (display sinks only).
    public var framesDropped = 0
    /// |video time − audio clock| at each presentation while an audio device
    /// was the master clock.
    public var drift = DriftHistogram()

    public init() {}
}

/// A distribution of A/V drift in fixed memory (a player may run for hours):
/// counts per 0.1 ms up to 100 ms, the rest in the last bucket, and the
/// exact largest value.
public struct DriftHistogram: Sendable {
    private static let bucket = 0.0001
    private var counts = [Int](repeating: 0, count: 1001)
    public private(set) var count = 0
    /// In seconds.
    public private(set) var maximum: Double = 0

    public init() {}

    package mutating func add(_ seconds: Double) {
        // Clamped as a Double: a damaged file's timestamps can make any
        // drift (infinite, past Int's range), and converting that traps.
        let last = counts.count - 1
        let index = seconds.isFinite ? Int(min(max(seconds / Self.bucket, 0), Double(last))) : last
        counts[index] += 1
        count += 1
        if seconds.isFinite { maximum = max(maximum, seconds) } else if !seconds.isNaN { maximum = .infinity }
    }

    /// The drift that `fraction` of the presentations stayed within (the
    /// nearest rank, to the bucket's upper edge; never above the largest).
    public func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((Double(count) * fraction).rounded(.up)))
        var seen = 0
        for (index, counted) in counts.enumerated() {
            seen += counted
            if seen >= rank { return index == counts.count - 1 ? maximum : min(Double(index + 1) * Self.bucket, maximum) }
        }
        return maximum
    }
}
