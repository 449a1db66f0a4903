/// The sleep timer as it stands: off, at the end of the current item, or
/// after some seconds more of playback (the sound fades over the last ten).
public struct SleepStatus: Codable, Sendable, Equatable {
    /// Seconds of playback left; nil with `atEnd`, or when off.
    public var remaining: Double?
    /// At the end of the current item.
    public var atEnd: Bool

    public init(remaining: Double? = nil, atEnd: Bool = false) {
        self.remaining = remaining
        self.atEnd = atEnd
    }

    public static let off = SleepStatus()
    public var isOff: Bool { remaining == nil && !atEnd }
}
