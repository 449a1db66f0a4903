import MediaModel
import MediaTerminal
import Testing

/// `play`'s on-screen messages: what each key changed, in one line, shown
/// for two seconds of the clock the view is given (a manual one here).
@Suite struct OnScreenTextTests {
    static func status() -> ItemStatus {
        var status = ItemStatus(item: 3, id: "film", title: "Film", kind: .video, state: .playing, position: 25, duration: 60)
        status.tracks = TrackStatus(
            audio: [MediaTrack(kind: .audio, number: 1, language: "en", codec: "aac"), MediaTrack(kind: .audio, number: 2, language: "de", codec: "aac")],
            subtitles: [MediaTrack(kind: .subtitle, number: 1, language: "en", codec: "subrip"), MediaTrack(kind: .subtitle, number: 2, language: "de", codec: "subrip")],
            audioTrack: 2, subtitleTrack: 2, subtitleDelay: 0.1
        )
        status.chapter = ChapterStatus(number: 3, count: 5, title: "The middle")
        return status
    }

    @Test(arguments: [
        (PlayerCommand.volume(.by(-5)), "Volume 80 %"), (.mute(nil), "Mute off (volume 80 %)"), (.speed(.times(1.1)), "Speed 1.25×"),
        (.subtitle(.next), "Subtitles 2/2 (de)"), (.audioTrack(.next), "Audio 2/2 (de)"), (.subtitleDelay(.by(0.1)), "Sub delay +0.1 s"),
        (.chapter(.next), "Chapter 3/5: The middle"), (.loudness(nil), "Loudness tags"), (.sleep(nil), "Sleep in 30:00"),
        (.seek(.by(5), nil), "00:25 / 01:00"), (.setRepeat(nil), "Repeat all"), (.shuffle(nil), "Shuffle off"),
    ])
    func eachKeySaysWhatItChanged(_ command: PlayerCommand, _ expected: String) {
        let audio = AudioSettings(volume: 80, speed: 1.25, loudness: .tags)
        let text = OnScreenText.message(for: command, status: Self.status(), audio: audio, playlist: PlaylistMode(repeat: .all), sleep: SleepStatus(remaining: 1799.5))
        #expect(text == expected)
    }

    @Test func subtitlesOffAndAPauseThatShowsItself() {
        var status = Self.status()
        status.tracks?.subtitleTrack = nil
        status.tracks?.subtitleDelay = -0.2
        let settings = (audio: AudioSettings(), playlist: PlaylistMode(), sleep: SleepStatus.off)
        #expect(OnScreenText.message(for: .subtitle(.toggle), status: status, audio: settings.audio, playlist: settings.playlist, sleep: settings.sleep) == "Subtitles off")
        #expect(OnScreenText.message(for: .subtitleDelay(.by(-0.1)), status: status, audio: settings.audio, playlist: settings.playlist, sleep: settings.sleep) == "Sub delay −0.2 s")
        #expect(OnScreenText.message(for: .toggle(nil), status: status, audio: settings.audio, playlist: settings.playlist, sleep: settings.sleep) == nil)
        #expect(OnScreenText.message(for: .sleep(.off), status: status, audio: settings.audio, playlist: settings.playlist, sleep: settings.sleep) == "Sleep off")
    }

    /// A message shows until two seconds of the clock have passed; the end
    /// of one that was replaced clears nothing.
    @Test func aMessageShowsForTwoSecondsOfTheClock() async throws {
        let clock = ManualClock(now: 100)
        var message = OnScreenMessage()
        let first = message.show("Volume 95 %", at: clock.now)
        #expect(first.until == 102)
        // The view's wake-up: a sleeper on the clock, moved by the test.
        let gone = Task { try await clock.sleep(until: first.until) }
        await clock.waitForSleepers(1)
        clock.advance(by: 1.5)
        #expect(message.current(at: clock.now) == "Volume 95 %")
        let second = message.show("Volume 90 %", at: clock.now)
        clock.advance(by: 0.5)
        try await gone.value
        let firstExpired = message.expire(first.generation)
        #expect(!firstExpired, "the first one's end: the second still shows")
        #expect(message.current(at: clock.now) == "Volume 90 %")
        clock.advance(by: 1.5)
        #expect(message.current(at: clock.now) == nil)
        let secondExpired = message.expire(second.generation)
        #expect(secondExpired)
    }
}
