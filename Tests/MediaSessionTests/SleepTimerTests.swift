@testable import MediaSession
import MediaModel
import Testing

/// The sleep timer alone: what `sleep` sets and cycles through, the fade it
/// gives a player, the time left following positions, and its two ends.
@Suite struct SleepTimerTests {
    /// A timer set for `seconds` and armed on "a" at `position`, at `speed`.
    func armed(_ timer: PlayerCommand.SleepTimer, at position: Double, duration: Double? = 60, speed: Double = 1) -> (SleepTimer, SleepTimer.Fade?) {
        var sleep = SleepTimer()
        _ = sleep.set(timer)
        let fade = sleep.fade(at: position, duration: duration, speed: speed)
        if let fade { sleep.armed(on: "a", end: fade.end) }
        return (sleep, fade)
    }

    @Test func setCyclesAndClears() {
        var sleep = SleepTimer()
        #expect(sleep.status == .off && !sleep.isSet)
        #expect(sleep.cycled() == .after(15 * 60), "off: fifteen minutes")
        _ = sleep.set(nil)
        #expect(sleep.status == SleepStatus(remaining: 15 * 60))
        // Pressed again once some of it has played: the next step.
        _ = sleep.set(.after(14 * 60))
        _ = sleep.set(nil)
        #expect(sleep.status == SleepStatus(remaining: 30 * 60))
        _ = sleep.set(.after(29 * 60))
        _ = sleep.set(nil)
        #expect(sleep.status == SleepStatus(remaining: 60 * 60))
        _ = sleep.set(nil)
        #expect(sleep.status == .off, "an hour cycles to off")
        _ = sleep.set(.endOfItem)
        #expect(sleep.status == SleepStatus(atEnd: true))
        #expect(sleep.cycled() == .off, "the item's end cycles to off")
        _ = sleep.set(.after(20 * 60))
        #expect(sleep.cycled() == .after(60 * 60), "under thirty minutes: an hour")
        _ = sleep.set(.off)
        #expect(sleep.status == .off)
    }

    @Test func setSaysWhichPlayerLosesItsFade() {
        var (sleep, _) = armed(.after(30), at: 0)
        #expect(sleep.armedOn == "a")
        let disarmed = sleep.set(.after(60))
        #expect(disarmed == "a", "the old fade is void")
        #expect(sleep.armedOn == nil, "not armed until the session arms it again")
        let notArmed = sleep.set(.off)
        #expect(notArmed == nil)
    }

    @Test func theFadeIsTheLastTenSecondsOfPlayback() {
        #expect(armed(.after(30), at: 100).1 == SleepTimer.Fade(range: 120...130, end: 130))
        // At twice the speed, 30 s of playback are 60 s of media, the fade 20 s.
        #expect(armed(.after(30), at: 100, speed: 2).1 == SleepTimer.Fade(range: 140...160, end: 160))
        #expect(armed(.after(4), at: 100).1 == SleepTimer.Fade(range: 100...104, end: 104), "shorter than the fade: all of it")
        #expect(armed(.endOfItem, at: 10).1 == SleepTimer.Fade(range: 50...60, end: 60), "at the item's end")
        #expect(armed(.endOfItem, at: 10, duration: nil).1 == nil, "an end that is not known arms nothing")
        #expect(SleepTimer().fade(at: 0, duration: 60, speed: 1) == nil, "off")
    }

    @Test func theTimeLeftFollowsTheArmedPlayer() {
        var (sleep, _) = armed(.after(30), at: 100)
        sleep.follow("a", position: 125, speed: 1)
        #expect(sleep.status.remaining == 5)
        sleep.follow("b", position: 101, speed: 1)
        #expect(sleep.status.remaining == 5, "another item's position is not the timer's")
        sleep.follow("a", position: 120, speed: 2)
        #expect(sleep.status.remaining == 5, "media seconds at twice the speed are half as long")
        sleep.follow("a", position: 200, speed: 1)
        #expect(sleep.status.remaining == 0, "never below zero")
        var (atEnd, _) = armed(.endOfItem, at: 0)
        atEnd.follow("a", position: 30, speed: 1)
        #expect(atEnd.status == SleepStatus(atEnd: true), "the item's end counts no time")
    }

    @Test func itEndsAtTheFadesPauseOrTheItemsEnd() {
        var (sleep, _) = armed(.after(30), at: 100)
        let usersPause = sleep.pausedAtEnd("a", position: 120)
        #expect(!usersPause, "a pause of the user's, before the end")
        let otherItem = sleep.pausedAtEnd("b", position: 130)
        #expect(!otherItem)
        let itemsEnd = sleep.endsWith("a")
        #expect(!itemsEnd, "a timer counting time does not wait for the end")
        let fadesEnd = sleep.pausedAtEnd("a", position: 129.97)
        #expect(fadesEnd, "within a sample or two of the end")
        #expect(sleep.status == .off)
        var (atEnd, _) = armed(.endOfItem, at: 0)
        let otherEnds = atEnd.endsWith("b")
        let itsEnd = atEnd.endsWith("a")
        #expect(!otherEnds && itsEnd)
        #expect(atEnd.status == .off)
    }

    @Test func armingAfterAClearChangesNothing() {
        var sleep = SleepTimer()
        sleep.armed(on: "a", end: 10)
        #expect(sleep.status == .off && sleep.armedOn == nil)
    }
}
