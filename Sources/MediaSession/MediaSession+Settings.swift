import MediaInterfaces
import MediaModel

/// What every player of the session shares: volume, mute, speed and
/// loudness, the tracks a new player starts with, the window's keys and
/// whether starts resume.
extension MediaSession {
    /// Volume and mute as they stand.
    public var audioSettings: AudioSettings { lock.withLock { settings } }

    /// Sets the volume (0–150 %, clamped; mute is kept) for every player,
    /// the playing one at once; returns the new setting.
    @discardableResult
    public func setVolume(_ volume: Int) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.volume(.to(volume))) ?? $0 }
    }

    /// Moves the volume by `step` percentage points.
    @discardableResult
    public func changeVolume(by step: Int) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.volume(.by(step))) ?? $0 }
    }

    /// Sets the speed (0.25–4, clamped; the pitch is kept) for every player:
    /// the playing one goes on from where it stands.
    @discardableResult
    public func setSpeed(_ speed: Double) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.speed(.to(speed))) ?? $0 }
    }

    /// Multiplies the speed by `factor` (`[` and `]`: 1/1.1 and 1.1), to
    /// two decimals.
    @discardableResult
    public func changeSpeed(by factor: Double) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.speed(.times(factor))) ?? $0 }
    }

    /// Mutes, unmutes (`muted`), or toggles mute (nil); the level is kept.
    @discardableResult
    public func setMuted(_ muted: Bool?) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.mute(muted)) ?? $0 }
    }

    func changeAudioSettings(_ change: (inout AudioSettings) -> Void) -> AudioSettings {
        let (changed, forPlayers, all) = lock.withLock {
            change(&settings)
            sendSettingsLocked()
            return (settings, playerSettingsLocked(), Array(players.values))
        }
        for player in all { player.setAudioSettings(forPlayers) }
        return changed
    }

    /// With `lock` held: the settings a player is handed, ReplayGain's
    /// `auto` resolved: the album's gain while several items play on in
    /// order, the track's under shuffle or for an item alone.
    func playerSettingsLocked() -> AudioSettings {
        settings.forPlayback(inAlbumOrder: playlist.mode.autoplay && !playlist.mode.shuffle && playlist.order.count > 1)
    }

    /// With `lock` held, so that every listener hears the changes in one
    /// order: the settings as they stand now.
    func sendSettingsLocked() {
        settingsSubscribers.send(SettingsEvent(audio: settings, playlist: playlist.mode))
    }

    /// The settings after each change of the volume, mute, speed, the
    /// playlist's modes or the sleep timer, whoever made it.
    public func settingsEvents() -> AsyncStream<SettingsEvent> {
        settingsSubscribers.subscribe()
    }

    /// A `subtitle`, `audio-track` or `sub-delay` command on what plays; the
    /// delay and whether subtitles show carry on to the next items.
    func changeTracks(_ command: PlayerCommand) throws(CommandError) -> ItemStatus? {
        let found: (key: ItemKey, player: any PlayerHandle)? = lock.withLock {
            guard let key = current, let player = players[key], player.currentState.isFinal == false else { return nil }
            return (key, player)
        }
        guard let found else { throw CommandError(.badRequest, "nothing is playing or paused (play a video with subtitles first)") }
        let changed = try found.player.changeTracks(command)
        lock.withLock {
            tracks.subtitleDelay = changed.subtitleDelay
            if case .subtitle = command { tracks.subtitle = changed.subtitleTrack == nil ? .off : (tracks.subtitle == .off ? .auto : tracks.subtitle) }
        }
        announce(found.key, .subtitle)
        return status(of: found.key)
    }

    /// Whether a start resumes where the item was left (config.toml's
    /// `start = "beginning"` makes every start begin at 0; positions are
    /// still kept).
    public var resumesItems: Bool {
        get { lock.withLock { resumes } }
        set { lock.withLock { resumes = newValue } }
    }

    /// What keys in a window do (the front end's keymap; config.toml's [keys]).
    public var keymap: Keymap {
        get { lock.withLock { windowKeymap } }
        set { lock.withLock { windowKeymap = newValue } }
    }
}
