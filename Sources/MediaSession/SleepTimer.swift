import MediaModel

/// The sleep timer: what it was set to, and the fade it is armed with on
/// the current item's player. It counts playback, not the wall clock: the
/// time left follows the armed player's positions (a paused item brings
/// sleep no nearer, a faster one nearer sooner), so it reads no clock of
/// its own. A value the session holds under its lock; the session arms
/// the fade on the player and tells the timer where it stands.
struct SleepTimer: Sendable, Equatable {
    /// When one is set: playback seconds left (nil: at the current item's
    /// end), and, once armed, the item it is armed on and the fade's end
    /// there (media seconds).
    private struct Arm: Sendable, Equatable {
        var remaining: Double?
        var armedOn: ItemKey?
        var end: Double?
    }

    private var arm: Arm?

    /// The fade a player is given: the last seconds before `end`, where it pauses.
    struct Fade: Sendable, Equatable {
        var range: ClosedRange<Double>
        var end: Double
    }

    /// How long the fade lasts, in playback seconds (all of it if less is left).
    static let fadeSeconds: Double = 10

    var isSet: Bool { arm != nil }

    /// The item whose player carries the fade, if armed.
    var armedOn: ItemKey? { arm?.armedOn }

    var status: SleepStatus {
        guard let arm else { return .off }
        return SleepStatus(remaining: arm.remaining, atEnd: arm.remaining == nil)
    }

    /// What a `sleep` with no time means now: off → 15 min; under 15 min
    /// left → 30; under 30 → 60; anything else (an hour, or the item's
    /// end) → off.
    func cycled() -> PlayerCommand.SleepTimer {
        guard let arm else { return .after(15 * 60) }
        guard let left = arm.remaining else { return .off }
        if left < 15 * 60 { return .after(30 * 60) }
        if left < 30 * 60 { return .after(60 * 60) }
        return .off
    }

    /// Sets (nil: cycles, see `cycled`) or clears the timer. Returns the
    /// item it was armed on: that player's fade is void now.
    mutating func set(_ wanted: PlayerCommand.SleepTimer?) -> ItemKey? {
        let previous = arm?.armedOn
        switch wanted ?? cycled() {
        case .off: arm = nil
        case let .after(seconds): arm = Arm(remaining: seconds)
        case .endOfItem: arm = Arm(remaining: nil)
        }
        return previous
    }

    /// The fade for a player at `position` of `duration` playing at
    /// `speed`: the time left is playback time, so it spans that many
    /// seconds times the speed of media. nil when off, or when it sleeps
    /// at an end that is not known.
    func fade(at position: Double, duration: Double?, speed: Double) -> Fade? {
        guard let arm else { return nil }
        let end: Double
        if let remaining = arm.remaining {
            end = position + remaining * speed
        } else {
            guard let duration else { return nil }
            end = duration
        }
        let start = max(position, end - Self.fadeSeconds * speed)
        return Fade(range: start...max(start, end), end: end)
    }

    /// The fade is on `key`'s player now (nothing if the timer was cleared meanwhile).
    mutating func armed(on key: ItemKey, end: Double) {
        arm?.armedOn = key
        arm?.end = end
    }

    /// A position of `key`'s player: the time left follows it when the
    /// timer is armed there and counts time.
    mutating func follow(_ key: ItemKey, position: Double, speed: Double) {
        guard let timer = arm, timer.armedOn == key, timer.remaining != nil, let end = timer.end else { return }
        arm?.remaining = max(0, (end - position) / speed)
    }

    /// `key`'s player paused at `position`: when that is the fade's end,
    /// the timer is done. True when it was the timer's pause.
    mutating func pausedAtEnd(_ key: ItemKey, position: Double) -> Bool {
        // The pause lands within a sample or two of the end it was given.
        guard let timer = arm, timer.armedOn == key, let end = timer.end, position >= end - 0.05 else { return false }
        arm = nil
        return true
    }

    /// `key` played to its end: true (and the timer done) when it was set
    /// for that end, so nothing plays on.
    mutating func endsWith(_ key: ItemKey) -> Bool {
        guard let timer = arm, timer.armedOn == key, timer.remaining == nil else { return false }
        arm = nil
        return true
    }
}
