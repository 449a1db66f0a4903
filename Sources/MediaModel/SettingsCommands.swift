/// What a settings command means, in one place: the background player
/// applies it to its settings, and a client applies it to the kept ones
/// while no player runs (they are the next start's).
extension AudioSettings {
    /// The settings after `command`; nil when it is not a volume, mute,
    /// speed or loudness command.
    public func applying(_ command: PlayerCommand) -> AudioSettings? {
        var changed = self
        switch command {
        case let .volume(.to(level)): changed.volume = level
        case let .volume(.by(step)): changed.volume = volume + CheckedNumber.clamped(step, to: -Self.range.upperBound...Self.range.upperBound)
        case let .mute(on): changed.muted = on ?? !muted
        case let .speed(.to(factor)): changed.speed = factor
        // `[` and `]`: to two decimals.
        case let .speed(.times(factor)): changed.speed = ((speed * factor) * 100).rounded() / 100
        case .speed(.reset): changed.speed = 1
        case let .loudness(mode): changed.loudness = mode ?? loudness.next
        default: return nil
        }
        // Clamped as a new setting is.
        return AudioSettings(volume: changed.volume, muted: changed.muted, speed: changed.speed, loudness: changed.loudness, replayGain: changed.replayGain)
    }
}

extension PlaylistMode {
    /// The modes after `command`; nil when it is not a repeat, shuffle or
    /// autoplay command. A bare `repeat` cycles off → all → one → off.
    public func applying(_ command: PlayerCommand) -> PlaylistMode? {
        var changed = self
        switch command {
        case let .setRepeat(mode):
            changed.repeat = mode ?? {
                switch self.repeat {
                case .off: return .all
                case .all: return .one
                case .one: return .off
                }
            }()
        case let .shuffle(on): changed.shuffle = on ?? !shuffle
        case let .autoplay(on): changed.autoplay = on ?? !autoplay
        default: return nil
        }
        return changed
    }
}
