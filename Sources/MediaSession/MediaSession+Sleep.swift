import MediaInterfaces
import MediaModel

/// The sleep timer (`SleepTimer`) on the session's players: its fade armed
/// on what plays, following its positions, ending at the fade's pause or
/// the item's end.
extension MediaSession {
    /// The sleep timer as it stands.
    public var sleepStatus: SleepStatus {
        lock.withLock { sleepTimer.status }
    }

    /// Sets, cycles (nil: 15, 30, 60 min, off) or clears the sleep timer,
    /// and arms its fade on what plays.
    func setSleep(_ timer: PlayerCommand.SleepTimer?) -> SleepStatus {
        let disarmed: (any PlayerHandle)? = lock.withLock { sleepTimer.set(timer).flatMap { players[$0] } }
        disarmed?.setFadeOut(nil)
        armSleep()
        return lock.withLock {
            sendSettingsLocked()
            return sleepTimer.status
        }
    }

    /// Arms the timer's fade on the current player: the last ten seconds of
    /// playback (the whole time if shorter) fade out, and it pauses at the
    /// end. A time beyond the item's end carries over to the next item.
    func armSleep() {
        let target: (player: any PlayerHandle, key: ItemKey, timer: SleepTimer, speed: Double)? = lock.withLock {
            guard sleepTimer.isSet, let key = current, let player = players[key] else { return nil }
            return (player, key, sleepTimer, settings.speed)
        }
        // Off the lock: the player's position and length are its own to read.
        guard let target, target.player.mediaInfo?.isImage != true,
              let fade = target.timer.fade(at: target.player.currentPosition, duration: target.player.mediaInfo?.duration, speed: target.speed)
        else { return }
        target.player.setFadeOut(fade.range)
        lock.withLock { sleepTimer.armed(on: target.key, end: fade.end) }
    }

    /// A position of `key`'s player: the time left follows it.
    func sleepFollows(_ key: ItemKey, position: Double) {
        lock.withLock { sleepTimer.follow(key, position: position, speed: settings.speed) }
    }

    /// `key`'s player paused at `position`: true when that was the timer's
    /// pause (the timer is done).
    func sleepEnded(_ key: ItemKey, position: Double) -> Bool {
        lock.withLock { sleepTimer.pausedAtEnd(key, position: position) }
    }

    /// `key` played to its end: true when the timer was set for that end
    /// (it is done, and nothing plays on).
    func sleepsAtEnd(of key: ItemKey) -> Bool {
        lock.withLock { sleepTimer.endsWith(key) }
    }
}
