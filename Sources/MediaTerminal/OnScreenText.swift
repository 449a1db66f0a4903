import MediaModel

/// What a key changed, in one short line shown for a moment (mpv's OSD
/// messages: "Subtitles 2/2", "Sub delay: +0.1 s", the chapter's name), on
/// `play`'s status line and in its window's title.
public enum OnScreenText {
    /// The message for `command`, read from the state it left (`status`:
    /// the item it acted on, as it stands now); nil for a command whose
    /// effect shows by itself (a pause, another item, a stop).
    public static func message(for command: PlayerCommand, status: ItemStatus?, audio: AudioSettings, playlist: PlaylistMode, sleep: SleepStatus) -> String? {
        switch command {
        case .volume: return audio.muted ? "Volume \(audio.volume) % (muted)" : "Volume \(audio.volume) %"
        case .mute: return audio.muted ? "Mute on" : "Mute off (volume \(audio.volume) %)"
        case .speed: return "Speed \(SpeedText.text(audio.speed))"
        case .loudness:
            let gain = status?.gain.map { ": \($0.brief)" } ?? ""
            return "Loudness \(audio.loudness.rawValue)\(gain)"
        case .sleep:
            if sleep.atEnd { return "Sleep at the end of this item" }
            return sleep.remaining.map { "Sleep in \(StatusText.clock($0.rounded(.up)))" } ?? "Sleep off"
        case .setRepeat: return "Repeat \(playlist.repeat.rawValue)"
        case .shuffle: return "Shuffle \(playlist.shuffle ? "on" : "off")"
        case .autoplay: return "Autoplay \(playlist.autoplay ? "on" : "off")"
        case .subtitle:
            guard let tracks = status?.tracks else { return nil }
            return track("Subtitles", tracks.subtitles, chosen: tracks.subtitleTrack)
        case .audioTrack:
            guard let tracks = status?.tracks else { return nil }
            return track("Audio", tracks.audio, chosen: tracks.audioTrack)
        case .subtitleDelay:
            let delay = status?.tracks?.subtitleDelay ?? 0
            return "Sub delay \(delay > 0 ? "+" : delay < 0 ? "−" : "")\(format(abs(delay))) s"
        case .chapter:
            guard let chapter = status?.chapter else { return nil }
            return "Chapter \(chapter.number)/\(chapter.count)" + (chapter.title.isEmpty ? "" : ": \(DisplayWidth.singleLine(chapter.title))")
        case .seek:
            guard let status else { return nil }
            return status.duration.map { "\(StatusText.clock(status.position)) / \(StatusText.clock($0))" } ?? StatusText.clock(status.position)
        case .toggle, .play, .pause, .stop, .next, .previous, .quit:
            return nil
        }
    }

    /// A refused key, as its message: what stood in the way.
    public static func refusal(_ error: CommandError) -> String {
        // A refusal names its item by title, which came from outside.
        DisplayWidth.singleLine(error.message)
    }

    /// "Subtitles 2/3 (de)", "Subtitles off", "Audio 1/2 (en, Commentary)".
    private static func track(_ name: String, _ tracks: [MediaTrack], chosen: Int?) -> String {
        guard let chosen, let track = tracks.first(where: { $0.number == chosen }) else { return "\(name) off" }
        let about = track.line.drop { $0 != " " }
        return "\(name) \(track.number)/\(tracks.count)\(about)"
    }

    private static func format(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// A message shown for a while (mpv's OSD), read against a clock: the view
/// that shows it asks what shows now, and is woken when it goes (the clock
/// is the caller's: tests move a manual one).
public struct OnScreenMessage: Sendable, Equatable {
    /// How long a message shows: about two seconds, as mpv's do.
    public static let duration = 2.0

    public private(set) var text: String?
    /// The clock's time it goes at.
    public private(set) var until: Double = 0
    /// Counts the messages shown, so that the end of one that was replaced
    /// clears nothing.
    public private(set) var generation = 0

    public init() {}

    /// Shows `text` from `now`; returns which message it is and when it goes.
    public mutating func show(_ text: String, at now: Double) -> (generation: Int, until: Double) {
        self.text = text
        until = now + Self.duration
        generation += 1
        return (generation, until)
    }

    /// What shows at `now` (nil: nothing, or it has gone).
    public func current(at now: Double) -> String? {
        now < until ? text : nil
    }

    /// The time of message `generation` is up: true when it was still the
    /// one showing (the view redraws without it).
    public mutating func expire(_ generation: Int) -> Bool {
        guard generation == self.generation, text != nil else { return false }
        text = nil
        return true
    }
}
