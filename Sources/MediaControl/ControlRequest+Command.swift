import MediaModel

// The socket's requests in the one vocabulary: a request that controls
// playback is one or more `PlayerCommand`s (docs/PROTOCOL.md keeps the wire
// format), and every client builds its request from a command.

extension ControlRequest {
    /// The commands this request asks for, in order (none: it only reads
    /// the settings); nil for a request that is not a control (status,
    /// observe, quit). Throws for values out of range, with the reason.
    public func playerCommands() throws(CommandError) -> [PlayerCommand]? {
        guard let kind = Command(rawValue: cmd) else { return nil }
        switch kind {
        case .command:
            guard let line = self.command else { throw CommandError(.badRequest, "command needs \"command\": a command line, like \"seek +20\"") }
            return [try PlayerCommand(parsing: line)]
        case .toggle:
            guard let item else { throw CommandError(.badRequest, "toggle needs \"item\": a number from 'mediaplay list' or an id") }
            return [.toggle(item)]
        case .seek:
            switch (seconds, by, percent) {
            case let (seconds?, nil, nil) where seconds.isFinite && seconds >= 0: return [.seek(.to(seconds), item)]
            case let (nil, offset?, nil) where offset.isFinite: return [.seek(.by(offset), item)]
            case let (nil, nil, share?) where (0...100).contains(share): return [.seek(.percent(share), item)]
            default: throw CommandError(.badRequest, "seek needs \"seconds\" (a time, 0 or more), \"by\" (seconds to move) or \"percent\" (0–100), one number")
            }
        case .stop:
            return [.stop(item)]
        case .volume:
            let limit = AudioSettings.range.upperBound
            switch (level, step) {
            case let (level?, nil) where AudioSettings.range.contains(level): return [.volume(.to(level))]
            case let (nil, step?) where (-limit...limit).contains(step): return [.volume(.by(step))]
            case (nil, nil): return []
            case (_?, _?): throw CommandError(.badRequest, "volume takes \"level\" or \"step\", not both")
            case (_?, nil): throw CommandError(.badRequest, "volume \"level\" must be from 0 to 150")
            case (nil, _?): throw CommandError(.badRequest, "volume \"step\" must be a change from −150 to 150")
            }
        case .mute:
            return [.mute(on)]
        case .speed:
            switch (value, factor) {
            case let (value?, nil) where AudioSettings.speeds.contains(value): return [.speed(.to(value))]
            case let (nil, factor?) where factor.isFinite && factor >= 0.25 / 4 && factor <= 4 / 0.25: return [.speed(.times(factor))]
            case (nil, nil): return []
            default: throw CommandError(.badRequest, "speed takes \"value\", a factor from 0.25 to 4, or \"factor\" to multiply it by")
            }
        case .next: return [.next]
        case .prev: return [.previous]
        case .playlist:
            return [autoplay.map(PlayerCommand.autoplay), self.repeat.map(PlayerCommand.setRepeat), shuffle.map(PlayerCommand.shuffle)].compactMap { $0 }
        case .status, .observe, .quit:
            return nil
        }
    }

    /// The request that asks the background player for `command`: in the
    /// request's own form where it has one, else as `command`.
    public init(_ command: PlayerCommand) {
        switch command {
        case let .toggle(item?): self.init(id: nil, cmd: .toggle, item: item)
        case let .stop(item): self.init(id: nil, cmd: .stop, item: item)
        case let .seek(.to(seconds), item): self.init(id: nil, cmd: .seek, item: item, seconds: seconds)
        case let .seek(.by(offset), item): self.init(id: nil, cmd: .seek, item: item, by: offset)
        case let .seek(.percent(share), item):
            self.init(id: nil, cmd: .seek, item: item)
            percent = share
        case let .volume(.to(level)): self.init(id: nil, cmd: .volume, level: level)
        case let .volume(.by(step)): self.init(id: nil, cmd: .volume, step: step)
        case let .mute(on): self.init(id: nil, cmd: .mute, on: on)
        case let .speed(.to(value)): self.init(id: nil, cmd: .speed, value: value)
        case .speed(.reset): self.init(id: nil, cmd: .speed, value: 1)
        case .next: self.init(id: nil, cmd: .next)
        case .previous: self.init(id: nil, cmd: .prev)
        case let .setRepeat(mode?):
            self.init(id: nil, cmd: .playlist)
            self.repeat = mode
        case let .shuffle(on?):
            self.init(id: nil, cmd: .playlist)
            shuffle = on
        case let .autoplay(on?):
            self.init(id: nil, cmd: .playlist)
            autoplay = on
        case .quit: self.init(id: nil, cmd: .quit)
        default:
            // play, pause, toggle of the current item, a relative speed, a
            // percentage seek, and the cycling modes: one line, done by the
            // daemon as one step (no read-modify-write across two requests).
            self.init(id: nil, cmd: .command)
            self.command = command.description
        }
    }
}
