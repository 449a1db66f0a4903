/// Each command's definition, declared once (as mpv's command table does):
/// how it runs and what its reply carries. The session, the socket, MPRIS,
/// browse, `play`'s keys and the command line read it here; none decides
/// it for itself (docs/ARCHITECTURE.md, "Adding a command").
extension PlayerCommand {
    /// How a command runs.
    public enum Execution: Sendable, Equatable {
        /// Done on the caller's thread, with no task, and never waits: a
        /// pause, a seek, the volume, the modes, a track.
        case atOnce
        /// Tried at once (a paused item resumes on the caller's thread,
        /// which keeps a toggle quick); when an item has to be opened,
        /// downloaded or stepped to, it runs as a task and its reply waits
        /// for the start.
        case mayStart
        /// Waits for a player to stop: always a task.
        case stops
    }

    /// What the reply to a command carries.
    public enum Reply: Sendable, Equatable {
        /// The status of the item it acted on.
        case item
        /// The status of the item it acted on, or nothing (`{}`) when no
        /// item was active.
        case itemIfAny
        /// The audio settings as they stand after it.
        case audio
        /// The playlist's modes as they stand after it.
        case playlist
        /// The sleep timer as it stands after it.
        case sleep
    }

    public struct Definition: Sendable, Equatable {
        public var execution: Execution
        public var reply: Reply
    }

    /// The one table.
    public var definition: Definition {
        switch self {
        case .toggle, .play, .next, .previous: Definition(execution: .mayStart, reply: .item)
        case .stop, .quit: Definition(execution: .stops, reply: .itemIfAny)
        case .pause: Definition(execution: .atOnce, reply: .itemIfAny)
        case .seek, .chapter, .subtitle, .audioTrack, .subtitleDelay: Definition(execution: .atOnce, reply: .item)
        case .volume, .mute, .speed, .loudness: Definition(execution: .atOnce, reply: .audio)
        case .setRepeat, .shuffle, .autoplay: Definition(execution: .atOnce, reply: .playlist)
        case .sleep: Definition(execution: .atOnce, reply: .sleep)
        }
    }
}

/// What a command did, in the shape its definition's `reply` names: the
/// item it acted on (nil: nothing was active), or the settings it changed,
/// as they stand after it.
public enum PlayerOutcome: Sendable, Equatable {
    case item(ItemStatus?)
    case audio(AudioSettings)
    case playlist(PlaylistMode)
    case sleep(SleepStatus)

    public var audio: AudioSettings? {
        if case let .audio(settings) = self { return settings }
        return nil
    }

    public var playlist: PlaylistMode? {
        if case let .playlist(mode) = self { return mode }
        return nil
    }

    public var item: ItemStatus? {
        if case let .item(status) = self { return status }
        return nil
    }

    public var sleep: SleepStatus? {
        if case let .sleep(status) = self { return status }
        return nil
    }
}
