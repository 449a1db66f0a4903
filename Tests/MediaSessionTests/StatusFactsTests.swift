import Foundation
@testable import MediaSession
import MediaFeed
import MediaModel
import SessionFakes
import Testing

/// The one place an item's status is made, from what the session knows.
@Suite struct StatusFactsTests {
    let item = FeedItem(position: 2, id: "a", title: "A", kind: .audio, source: .file("/a.wav"))

    func player(_ kind: MediaKind = .audio) -> FakePlayer {
        FakePlayer(key: "a", kind: kind, start: 7) { _ in }
    }

    @Test func withoutAPlayerADownloadThenAStartThenAFailureThenTheSavedPosition() {
        var facts = StatusFacts(saved: { 12 })
        #expect(facts.status(of: item).state == .idle && facts.status(of: item).position == 12, "idle, where it would resume")
        facts.failure = CommandError(.downloadFailed, "download failed: reset")
        #expect(facts.status(of: item).state == .failed && facts.status(of: item).error == "download failed: reset")
        facts.starting = true
        #expect(facts.status(of: item).state == .buffering, "waiting for the server's first answer")
        facts.download = .some(0.25)
        #expect(facts.status(of: item).state == .downloading && facts.status(of: item).progress == 0.25)
        #expect(facts.status(of: item).item == 2 && facts.status(of: item).id == "a" && facts.status(of: item).title == "A")
    }

    @Test func aPlayersStateIsTheItems() {
        let player = player()
        var facts = StatusFacts(player: player, chapters: [Chapter(start: 0, title: "One"), Chapter(start: 5, title: "Two")], saved: { 99 })
        #expect(facts.status(of: item).state == .playing, "starting, its file open: playing")
        #expect(facts.status(of: item).position == 7 && facts.status(of: item).duration == 60)
        #expect(facts.status(of: item).chapter == ChapterStatus(number: 2, count: 2, title: "Two"))
        player.play()
        player.pause()
        #expect(facts.status(of: item).state == .paused)
        facts.live = LiveStreams.Info(title: "Song", notice: "reconnecting")
        let live = facts.status(of: item)
        #expect(live.live == true && live.duration == nil && live.streamTitle == "Song" && live.notice == "reconnecting")
        player.fail("invalid data", input: false)
        #expect(facts.status(of: item).error == "invalid data", "the player's failure (front ends say its item beside it)")
        facts.failure = CommandError(.playbackFailed, "kept")
        #expect(facts.status(of: item).error == "kept", "what the session kept wins")
    }

    @Test func aClosedPictureIsIdleAndHasNoPosition() {
        let picture = player(.image)
        let facts = StatusFacts(player: picture)
        #expect(facts.status(of: item).position == 0 && facts.status(of: item).duration == nil)
        picture.stop()
        #expect(facts.status(of: item).state == .idle)
        let audio = player()
        audio.stop()
        #expect(StatusFacts(player: audio).status(of: item).state == .stopped)
    }
}
