/// What a settings command means, in one place: the background player
/// applies it to its settings, and a client applies it to the kept ones
/// while no player runs (they are the next start's).
extension AudioSettings {
    /// The settings after `command`; nil when it is not a volume, mute or
    /// speed command.
    public func applying(_ command: PlayerCommand) -> AudioSettings? {
        switch command {
        case let .volume(.to(level)): return AudioSettings(volume: level, muted: muted, speed: speed)
        case let .volume(.by(step)):
            let step = CheckedNumber.clamped(step, to: -Self.range.upperBound...Self.range.upperBound)
            return AudioSettings(volume: volume + step, muted: muted, speed: speed)
        case let .mute(on): return AudioSettings(volume: volume, muted: on ?? !muted, speed: speed)
        case let .speed(.to(factor)): return AudioSettings(volume: volume, muted: muted, speed: factor)
        // `[` and `]`: to two decimals.
        case let .speed(.times(factor)): return AudioSettings(volume: volume, muted: muted, speed: ((speed * factor) * 100).rounded() / 100)
        case .speed(.reset): return AudioSettings(volume: volume, muted: muted, speed: 1)
        default: return nil
        }
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
