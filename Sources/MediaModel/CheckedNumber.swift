/// The one way a number from outside (a file, a tag, a feed, the socket,
/// D-Bus or the command line) becomes an integer or a time. Swift's
/// `Int(x)`, `Int64(x)`, `UInt8(x)` and `abs(x)` trap on a value out of
/// range or not finite; a hostile file or peer must never reach them.
public enum CheckedNumber {
    /// The longest time kept as a duration or a position: a year. A file
    /// claiming more is read as "duration unknown"; a seek past it stops there.
    public static let longestTime: Double = 366 * 86_400

    /// `seconds` as a duration: nil when not finite, not positive, or
    /// beyond `longestTime` (a container's garbage, not a real length).
    public static func duration(_ seconds: Double?) -> Double? {
        guard let seconds, seconds.isFinite, seconds > 0, seconds <= longestTime else { return nil }
        return seconds
    }

    /// `seconds` as a time in an item that may be its very start (a
    /// chapter's): finite, 0 or more, within `longestTime`; else nil.
    public static func time(_ seconds: Double?) -> Double? {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds <= longestTime else { return nil }
        return seconds
    }

    /// `seconds` as a position in an item: finite, from 0 to `duration`
    /// (or `longestTime` when the duration is unknown). NaN is 0.
    public static func position(_ seconds: Double, within duration: Double? = nil) -> Double {
        guard !seconds.isNaN else { return 0 }
        let end = Self.duration(duration) ?? longestTime
        return min(max(seconds, 0), end)
    }

    /// `value` as an `Int` when it is finite and in range (rounded toward
    /// zero), else nil.
    public static func int(_ value: Double) -> Int? {
        guard value.isFinite, value > -9.2e18, value < 9.2e18 else { return nil }
        return Int(value)
    }

    /// `value` rounded and clamped into `range`; NaN gives the lower bound.
    public static func clamped(_ value: Double, to range: ClosedRange<Int>) -> Int {
        guard !value.isNaN else { return range.lowerBound }
        let rounded = value.rounded()
        if rounded <= Double(range.lowerBound) { return range.lowerBound }
        if rounded >= Double(range.upperBound) { return range.upperBound }
        return Int(rounded)
    }

    /// An integer clamped into `range` (any integer type in, `Int` out).
    public static func clamped(_ value: some BinaryInteger, to range: ClosedRange<Int>) -> Int {
        if value < range.lowerBound { return range.lowerBound }
        if value > range.upperBound { return range.upperBound }
        return Int(value)
    }

    /// A time in seconds as microseconds (MPRIS's positions and lengths):
    /// the time is first made a position, so the result always fits.
    public static func microseconds(_ seconds: Double) -> Int64 {
        Int64((position(seconds) * 1e6).rounded())
    }
}

/// "42%": a fraction from 0 to 1 as a whole percentage, rounded down
/// (a fraction out of range, from a peer, is clamped).
public enum Percent {
    public static func text(_ fraction: Double) -> String {
        guard fraction.isFinite else { return "0%" }
        return "\(CheckedNumber.clamped((fraction * 100).rounded(.down), to: 0...100))%"
    }
}
