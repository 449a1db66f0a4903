import Foundation
import MediaInterfaces
import MediaFeed
import MediaModel
import MediaSession
import MediaState
import SessionFakes
import Testing
import TestKit

/// A playlist plays on past an item that fails (a missing file, a failed
/// download, a file the player cannot decode), as mpv's does: autoplay
/// goes on to the next one, `next` and `previous` step over it, and a
/// round of nothing but failures ends instead of going round.
@Suite struct PlayOnPastFailuresTests {
    let folder: TemporaryDirectory
    let feed: Feed
    let engine = FakeEngine()
    let store: FakeStore
    static let gone = URL(string: "http://media.invalid/gone.mp3")!

    init() throws {
        let folder = try TemporaryDirectory()
        self.folder = folder
        func file(_ name: String) throws -> MediaSource { .file(try folder.write(name, "not decoded by the fake engine")) }
        feed = Feed(title: "t", items: [
            FeedItem(position: 1, id: "one", title: "One", kind: .audio, source: try file("1.wav")),
            FeedItem(position: 2, id: "missing", title: "Missing", kind: .audio, source: .file(folder.path + "/missing.wav")),
            FeedItem(position: 3, id: "three", title: "Three", kind: .audio, source: try file("3.wav")),
            FeedItem(position: 4, id: "gone", title: "Gone", kind: .audio, source: .remote(Self.gone)),
            FeedItem(position: 5, id: "five", title: "Five", kind: .audio, source: try file("5.wav")),
        ])
        store = FakeStore([Self.gone: .fails(.http(status: 404, host: "media.invalid"))])
    }

    func session(autoplay: Bool = true, repeat mode: PlaylistMode.Repeat = .off) -> MediaSession {
        MediaSession(feed: feed, store: store, positions: nil, engine: engine, playlist: PlaylistMode(autoplay: autoplay, repeat: mode))
    }

    /// Ends `key`'s player and waits for what the session does about it
    /// (its `ended` event comes once it decided what plays on; `settle`
    /// waits for that work).
    func finish(_ session: MediaSession, _ key: ItemKey) async {
        let events = session.events()
        engine.player(key)?.finish()
        for await event in events where event.status.id == key && event.event == .state && event.status.state == .ended { break }
        await session.settle()
    }

    @Test func autoplayGoesOnPastAMissingFile() async throws {
        let session = session()
        try await session.toggle("one")
        await finish(session, "one")
        #expect(session.status(of: "missing")?.state == .failed, "the missing one keeps its failure for its status")
        #expect(session.status(of: "missing")?.error == "missing: no readable file at \(folder.path)/missing.wav")
        #expect(session.currentStatus()?.id == "three" && session.currentStatus()?.state == .playing, "and the next one plays")
        #expect(engine.players.map(\.key) == ["one", "three"])
    }

    @Test func autoplayGoesOnPastAPlayerThatFailsAndAFailedDownload() async throws {
        let session = session()
        try await session.toggle("three")
        let events = session.events()
        // The file cannot be decoded: its player fails as it plays.
        engine.player("three")?.fail("it is not a media file FFmpeg can read", input: false)
        for await event in events where event.status.id == "three" && event.status.state == .failed { break }
        await session.settle()
        #expect(session.status(of: "three")?.error == "it is not a media file FFmpeg can read", "said once, without its item (front ends put it beside)")
        #expect(session.status(of: "gone")?.state == .failed, "the download failed too")
        #expect(session.currentStatus()?.id == "five" && session.currentStatus()?.state == .playing)
        #expect(session.willPlayOn(after: "three") && session.willPlayOn(after: "gone"), "past both, something plays")
    }

    @Test func nextAndPreviousStepOverFailures() async throws {
        let session = session(autoplay: false)
        try await session.toggle("one")
        let next = try await session.next()
        #expect(next.id == "three" && next.state == .playing, "the missing one is stepped over")
        #expect(session.status(of: "one")?.state == .stopped, "the one left stops, as a step does")
        let further = try await session.next()
        #expect(further.id == "five", "and the failed download")
        let back = try await session.previous()
        #expect(back.id == "three", "back over it")
        let first = try await session.previous()
        #expect(first.id == "one")
        await session.settle()
        #expect(engine.players.map(\.key) == ["one", "three", "five", "three", "one"], "no start besides the steps'")
    }

    @Test func aToggleOfAFailingItemAnswersWithItsFailureAndStartsNothingElse() async throws {
        let session = session()
        await #expect(throws: CommandError.self) { try await session.toggle("missing") }
        await session.settle()
        #expect(engine.players.isEmpty && session.currentStatus() == nil)
        // A toggled file that cannot be decoded: its reply says so; nothing else starts.
        let status = try await session.toggle("three")
        let events = session.events()
        engine.player("three")?.fail("cannot decode", input: false)
        _ = status
        for await event in events where event.status.id == "three" && event.status.state == .failed { break }
        await session.settle()
        // Once it played, its failure is the playlist's: it goes on.
        #expect(session.currentStatus()?.id == "five")
    }

    @Test func aRoundOfNothingButFailuresEnds() async throws {
        let broken = Feed(title: "t", items: [
            FeedItem(position: 1, id: "one", title: "One", kind: .audio, source: feed.items[0].source),
            FeedItem(position: 2, id: "missing", title: "Missing", kind: .audio, source: .file(folder.path + "/missing.wav")),
            FeedItem(position: 3, id: "gone", title: "Gone", kind: .audio, source: .remote(Self.gone)),
        ])
        let session = MediaSession(feed: broken, store: store, positions: nil, engine: engine, playlist: PlaylistMode(autoplay: true, repeat: .all))
        try await session.toggle("one")
        let events = session.events()
        engine.player("one")?.fail("cannot decode", input: false)
        // One → missing → gone → one again: it failed in this round, so the round ends.
        for await event in events where event.status.id == "gone" && event.status.state == .failed { break }
        await session.settle()
        #expect(engine.players.map(\.key) == ["one"], "tried once each, never round again")
        #expect(!session.willPlayOn(after: "gone"))
        #expect(session.status(of: "missing")?.state == .failed)
    }
}

/// Positions and played marks, kept by one rule for every player: where an
/// item was left it resumes (a step included), unless it was nearly
/// finished, which marks it played.
@Suite struct KeptPositionTests {
    let folder: TemporaryDirectory
    let feed: Feed
    let engine = FakeEngine()

    init() throws {
        let folder = try TemporaryDirectory()
        self.folder = folder
        feed = Feed(title: "t", items: try (1...3).map { number in
            FeedItem(position: number, id: "\(number)", title: "\(number)", kind: .audio, source: .file(try folder.write("\(number).wav", "x")))
        })
    }

    /// `toggle 2; seek 0:20; next; prev` resumes item 2 at 0:20, and keeps
    /// 0:20 for the next start (a step started at 0 and saved 0 over it).
    @Test func aStepResumesWhereTheItemWasLeft() async throws {
        let state = try StateStore(path: folder.path + "/positions.sqlite")
        let session = MediaSession(feed: feed, store: nil, positions: state, engine: engine, playlist: PlaylistMode(autoplay: true))
        try await session.toggle("2")
        _ = try await session.perform(.seek(.to(20), nil))
        _ = try await session.next()
        #expect(engine.player("3")?.start == 0)
        let back = try await session.previous()
        #expect(back.id == "2" && engine.player("2")?.start == 20, "resumed at 0:20")
        engine.player("2")?.advance(5)
        await session.stop()
        await session.shutdown()
        #expect(state.position(for: feed.items[1].source!.description) == 25, "where it was left, not 0")
        // A new session (another player of the user) resumes there too.
        let again = MediaSession(feed: feed, store: nil, positions: state, engine: engine)
        try await again.toggle("2")
        #expect(engine.player("2")?.start == 25)
    }

    /// Left in its last seconds: marked played, and the next start is at the top.
    @Test func nearlyFinishedIsPlayedAndStartsOver() async throws {
        let state = try StateStore(path: folder.path + "/positions.sqlite")
        let session = MediaSession(feed: feed, store: nil, positions: state, engine: engine)
        let url = feed.items[0].source!.description
        try await session.toggle("1")
        engine.player("1")?.advance(59.5)  // of 60: within the last 1 %
        await session.stop()
        await session.shutdown()
        #expect(state.position(for: url) == nil)
        #expect(state.playedURLs().contains(url))
        try await session.toggle("1")
        #expect(engine.player("1")?.start == 0, "from the top")
    }

    /// `play --start` and a seek win over the kept position.
    @Test func anExplicitStartWins() async throws {
        let state = try StateStore(path: folder.path + "/positions.sqlite")
        try state.save(30, for: feed.items[0].source!.description)
        let session = MediaSession(feed: feed, store: nil, positions: state, engine: engine)
        _ = try await session.perform(.play(.id("1"), from: 5))
        #expect(engine.player("1")?.start == 5)
        _ = try await session.perform(.play(.id("2")))
        _ = try await session.perform(.seek(.to(40), nil))
        await session.stop()
        _ = try await session.perform(.play(.id("2")))
        #expect(engine.player("2")?.start == 40, "a seek wins over what was kept")
    }
}

/// What keys do is heard as it happens (`play` shows it for a moment):
/// done, or refused with why, never dropped in silence.
@Suite struct KeyFeedbackTests {
    @Test func aKeysCommandIsHeardDoneOrRefused() async throws {
        let folder = try TemporaryDirectory()
        let feed = Feed(title: "t", items: [FeedItem(position: 1, id: "a", title: "A", kind: .audio, source: .file(try folder.write("a.wav", "x")))])
        let session = MediaSession(feed: feed, store: nil, positions: nil, engine: FakeEngine())
        var heard = session.keyFeedback().makeAsyncIterator()
        session.performDetached(.volume(.by(-5)))
        let volume = await heard.next()
        #expect(volume == .done(.volume(.by(-5))))
        session.performDetached(.subtitle(.next))
        let subtitle = await heard.next()
        guard case let .refused(command, error)? = subtitle else { Issue.record("a refusal is heard"); return }
        #expect(command == .subtitle(.next) && error.message.contains("nothing is playing"))
        // One that waits (a start) is heard once it is done.
        session.performDetached(.play(.id("a")))
        let played = await heard.next()
        #expect(played == .done(.play(.id("a"))))
        await session.settle()
    }
}
