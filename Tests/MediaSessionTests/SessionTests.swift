import Foundation
import Synchronization
import MediaFeed
import MediaModel
import MediaState
import MediaSession
import SessionFakes
import Testing
import TestKit

/// The command layer alone, over the fake engine and cache: toggling,
/// switching, ended against stopped, saved positions, a feed reload and
/// errors. No SDL, FFmpeg, sound or network.
@Suite struct SessionTests {
    let folder: TemporaryDirectory
    let feed: Feed
    let engine = FakeEngine()
    let store: FakeStore
    static let remote = URL(string: "http://media.invalid/remote.mp3")!
    static let broken = URL(string: "http://media.invalid/broken.mp3")!
    static let remotePicture = URL(string: "http://media.invalid/picture.png")!

    init() throws {
        folder = try TemporaryDirectory()
        let audio = try folder.write("a.wav", "not decoded by the fake engine")
        let video = try folder.write("b.mp4", "nor this")
        let picture = try folder.write("c.png", "nor this")
        feed = Feed(title: "t", items: [
            FeedItem(position: 1, id: "a", title: "A", kind: .audio, source: .file(audio)),
            FeedItem(position: 2, id: "b", title: "B", kind: .video, source: .file(video)),
            FeedItem(position: 3, id: "pic", title: "Pic", kind: .image, source: .file(picture)),
            FeedItem(position: 4, id: "remote", title: "Remote", kind: .audio, source: .remote(Self.remote)),
            FeedItem(position: 5, id: "broken", title: "Broken", kind: .audio, source: .remote(Self.broken)),
            FeedItem(position: 6, id: "bad", title: "Bad", kind: nil, source: nil, invalidReason: "unknown type 9"),
            FeedItem(position: 7, id: "words", title: "Words", kind: .image, source: nil),
            FeedItem(position: 8, id: "gone", title: "Gone", kind: .audio, source: .file(folder.path + "/gone.wav")),
            FeedItem(position: 9, id: "remote-pic", title: "Remote pic", kind: .image, source: .remote(Self.remotePicture)),
        ])
        store = FakeStore([Self.remote: .succeeds(path: audio), Self.broken: .fails(.http(status: 404, host: "media.invalid")),
                           Self.remotePicture: .succeeds(path: picture)])
    }

    func session(positions: StateStore? = nil) -> MediaSession {
        MediaSession(feed: feed, store: store, positions: positions, engine: engine)
    }

    /// Ends `key`'s player and waits, deterministically, for what the
    /// session does about it: its `ended` event is sent after the session
    /// decided what plays on, and `settle` waits for that work to finish.
    func finishAndSettle(_ session: MediaSession, _ key: ItemKey) async throws {
        let events = session.events()
        engine.player(key)?.finish()
        for await event in events where event.status.id == key && event.event == .state && event.status.state == .ended { break }
        await session.settle()
    }

    /// Waits for `condition`, checked again after each of the session's
    /// events once its background work has settled (what a player's event
    /// sets off ends in the session's state, an event, or both). Thirty
    /// seconds without it is a failure rather than a hang.
    func eventually(_ session: MediaSession, _ condition: () -> Bool) async throws {
        let events = session.events()
        let (wakes, wake) = AsyncStream<Void>.makeStream()
        let forwarding = Task {
            for await _ in events { wake.yield() }
        }
        let limit = Task {
            try await SystemClock.shared.sleep(for: 30)
            wake.finish()
        }
        defer { forwarding.cancel(); limit.cancel() }
        await session.settle()
        if condition() { return }
        for await _ in wakes {
            await session.settle()
            if condition() { return }
        }
        #expect(condition())
    }

    @Test func toggleStartsPausesAndResumesOnePlayer() async throws {
        let session = session()
        #expect(try await session.toggle("a").state == .playing)
        #expect(try await session.toggle("a").state == .paused)
        #expect(try await session.toggle("a").state == .playing)
        #expect(engine.players.count == 1, "resuming keeps the player, and so the exact position")
        #expect(session.currentStatus()?.id == "a")
    }

    @Test func switchingPausesTheCurrentItemWhereItStands() async throws {
        let session = session()
        try await session.toggle("a")
        engine.player("a")?.advance(5)
        try await session.toggle("b")
        #expect(session.status(of: "a")?.state == .paused)
        #expect(session.status(of: "a")?.position == 5)
        #expect(session.currentStatus()?.id == "b")
        #expect(try await session.toggle("a").state == .playing)
        #expect(session.status(of: "b")?.state == .paused)
        #expect(engine.players.count == 2)
    }

    @Test func endedStartsOverAndStoppedResumes() async throws {
        let session = session()
        try await session.toggle("a")
        engine.player("a")?.advance(10)
        engine.player("a")?.finish()
        try await eventually(session) { session.status(of: "a")?.state == .ended }
        try await session.toggle("a")
        #expect(engine.player("a")?.start == 0, "an ended item plays from the start")
        engine.player("a")?.advance(7)
        let stopped = await session.stop()
        #expect(stopped?.state == .stopped && stopped?.position == 7)
        #expect(session.currentStatus() == nil)
        try await session.toggle("a")
        #expect(engine.player("a")?.start == 7, "a stopped item resumes where it stood")
    }

    @Test func anEndedItemStartsOverWhateverWasSaved() async throws {
        let positions = try StateStore(path: folder.path + "/positions.sqlite")
        let session = session(positions: positions)
        try await session.toggle("a")
        engine.player("a")?.advance(30)
        session.savePositions()  // a periodic save, then the end
        engine.player("a")?.finish()
        // At once, before the session has handled the end.
        try await session.toggle("a")
        #expect(engine.player("a")?.start == 0)
    }

    @Test func aStopDuringADownloadCancelsTheStart() async throws {
        let slow = FakeStore([Self.remotePicture: .waits(path: folder.path + "/c.png")])
        let session = MediaSession(feed: feed, store: slow, positions: nil, engine: engine)
        let toggling = Task { try await session.toggle("remote-pic") }
        try await eventually(session) { session.status(of: "remote-pic")?.state == .downloading }
        _ = await session.stop("remote-pic")
        let ended = try await toggling.value
        #expect(ended.state == .idle, "stopped before it started: \(ended)")
        #expect(slow.cancellations == [Self.remotePicture], "its download was cancelled")
        #expect(engine.player("remote-pic") == nil, "nothing opened afterwards")
        #expect(session.status(of: "remote-pic")?.error == nil, "a cancelled download is no failure")
    }

    @Test func anItemDroppedDuringItsDownloadNeverPlays() async throws {
        let slow = FakeStore([Self.remotePicture: .waits(path: folder.path + "/c.png")])
        let session = MediaSession(feed: feed, store: slow, positions: nil, engine: engine)
        let toggling = Task { try await session.toggle("remote-pic") }
        try await eventually(session) { session.status(of: "remote-pic")?.state == .downloading }
        session.update(feed: Feed(title: "t", items: [feed.items[0]]))
        slow.release(Self.remotePicture)
        _ = try await toggling.value
        // Opened after its download, perhaps, but never played, and not left open.
        #expect(engine.player("remote-pic")?.wasPlayed != true, "it never played")
        #expect(engine.player("remote-pic").map { $0.currentState.isFinal } != false, "not left open")
        #expect(session.currentStatus() == nil)
    }

    @Test func aClosedWindowIsAStopAndAClosedPictureIsIdle() async throws {
        let session = session()
        try await session.toggle("b")
        engine.player("b")?.advance(3)
        engine.player("b")?.controls(.key(.character(" ")))
        #expect(session.status(of: "b")?.state == .paused, "space in the window pauses, through the session")
        engine.player("b")?.controls(.key(.character(" ")))
        engine.player("b")?.controls(.key(.right))
        #expect(session.status(of: "b")?.position == 8, "an arrow seeks, through the session")
        engine.player("b")?.controls(.closed)
        #expect(session.status(of: "b")?.state == .stopped)
        #expect(session.status(of: "b")?.position == 8)
        try await session.toggle("pic")
        engine.player("pic")?.controls(.closed)
        #expect(session.status(of: "pic")?.state == .idle)
        #expect(try await session.toggle("pic").state == .playing, "a closed picture opens again")
        #expect(try await session.toggle("pic").state == .idle, "a second toggle closes it")
        // A picture paused in its window (or by MPRIS) resumes on a toggle,
        // at once or not (toggleAtOnce is the socket's pause/resume path).
        try await session.toggle("pic")
        engine.player("pic")?.controls(.key(.character(" ")))
        #expect(session.status(of: "pic")?.state == .paused)
        #expect(try await session.toggle("pic").state == .playing, "a paused picture resumes")
        engine.player("pic")?.controls(.key(.character(" ")))
        #expect(try session.toggleAtOnce("pic")?.state == .playing, "at once too")
        #expect(try session.toggleAtOnce("pic") == nil, "closing a picture waits: toggle does it")
    }

    @Test func positionsOutliveTheSessionAndAnEndForgetsThem() async throws {
        let positions = try StateStore(path: folder.path + "/positions.sqlite")
        let first = session(positions: positions)
        try await first.toggle("a")
        engine.player("a")?.advance(12)
        try await first.toggle("a")
        await first.shutdown()
        #expect(positions.position(for: feed.items[0].source!.description) == 12, "in the database")

        let second = session(positions: try StateStore(path: folder.path + "/positions.sqlite"))
        #expect(second.status(of: "a")?.position == 12)
        try await second.toggle("a")
        #expect(engine.player("a")?.start == 12)
        engine.player("a")?.finish()
        try await eventually(second) { positions.position(for: feed.items[0].source!.description) == nil }
        await second.shutdown()
    }

    @Test func aReloadedFeedKeepsWhatPlaysByKey() async throws {
        let session = session()
        try await session.toggle("b")
        try await session.toggle("a")
        // Reordered, one item added in front, and "a" gone.
        var items = [FeedItem(position: 1, id: "new", title: "New", kind: .audio, source: .file(folder.path + "/new.wav"))]
        items += [feed.items[1], feed.items[2]]
        for index in items.indices { items[index].position = index + 1 }
        let dropped = session.update(feed: Feed(title: "t", items: items))
        #expect(dropped.map(\.key) == ["a"], "what left the feed stopped")
        #expect(session.status(of: "b")?.item == 2 && session.status(of: "b")?.state == .paused, "b kept its player at its new number")
        #expect(try session.item(.number(2)).key == "b", "number 2 now means b")
        #expect(try await session.toggle("b").state == .playing)
        #expect(engine.players.filter { $0.key == "b" }.count == 1, "the same player")
        #expect(engine.player("a")?.currentState == .stopped)
    }

    @Test func anItemWhoseMediaChangedIsStopped() async throws {
        let session = session()
        try await session.toggle("a")
        var items = feed.items
        items[0].source = .file(folder.path + "/other.wav")
        #expect(session.update(feed: Feed(title: "t", items: items)).map(\.key) == ["a"])
        #expect(session.status(of: "a")?.state == .idle)
    }

    @Test func errorsCarryTheirCodeAndSayWhatIsWrong() async throws {
        let session = session()
        await #expect(throws: CommandError(.invalidItem, "item 6 \"Bad\" is invalid: unknown type 9")) { try await session.toggle("bad") }
        await #expect(throws: CommandError(.invalidItem, "item 7 \"Words\" is text only: it has no media to play")) { try await session.toggle("words") }
        await #expect(throws: CommandError(.noSuchItem, "item 8: no readable file at \(folder.path)/gone.wav")) { try await session.toggle("gone") }
        #expect(session.status(of: "gone")?.state == .failed)
        await #expect(throws: CommandError(.downloadFailed, "item 5 \"Broken\": download failed: HTTP 404 from media.invalid")) {
            try await session.toggle("broken")
        }
        // The status's error does not repeat the item: front ends show it beside it.
        #expect(session.status(of: "broken")?.error == "download failed: HTTP 404 from media.invalid")
        #expect(throws: CommandError.self) { try session.item(.number(99)) }
        #expect(throws: CommandError.self) { try session.item(.number(Int.min)) }
        #expect(throws: CommandError(.badRequest, "item 1 is not playing or paused")) { try session.seek("a", to: 3) }
        await #expect(throws: CommandError.self) { try await session.toggle("no-such-key") }
    }

    @Test func aFailedPlayerIsFailedWithTheRightCode() async throws {
        let session = session()
        try await session.toggle("remote")
        engine.player("remote")?.fail("download of remote.mp3 failed: reset", input: true)
        try await eventually(session) { session.failure(of: "remote")?.code == .downloadFailed }
        #expect(session.status(of: "remote")?.state == .failed)
        try await session.toggle("a")
        engine.player("a")?.fail("invalid data", input: false)
        try await eventually(session) { session.failure(of: "a")?.code == .playbackFailed }
    }

    @Test(.timeLimit(.minutes(1))) func eventsKeepTheirKindAndAStateIsSentOnce() async throws {
        let session = session()
        let seen = Mutex<[String]>([])
        let events = session.events()
        let (appended, append) = AsyncStream<Void>.makeStream()
        let collecting = Task {
            for await event in events {
                seen.withLock { $0.append("\(event.status.id) \(event.event.rawValue) \(event.status.state.rawValue)") }
                append.yield()
            }
        }
        defer { collecting.cancel() }
        // Each wake follows one event recorded (the test's time limit ends a wait that never comes true).
        var heard = appended.makeAsyncIterator()
        try await session.toggle("remote-pic")
        while !seen.withLock({ $0.last == "remote-pic state playing" }), await heard.next() != nil {}
        try await session.toggle("a")
        while !seen.withLock({ $0.last == "a state playing" }), await heard.next() != nil {}
        engine.player("a")?.advance(1)
        engine.player("a")?.advance(1)
        while !seen.withLock({ $0.count >= 7 }), await heard.next() != nil {}
        session.pause("a")
        while !seen.withLock({ $0.count >= 8 }), await heard.next() != nil {}
        // The player's own word of the pause comes after: no change, no event.
        // A drain, not a sleep: the player's events are handled in order, so
        // once a later one is heard, the pause's was handled before it.
        engine.player("a")?.seek(to: 5)
        while !seen.withLock({ $0.last == "a position paused" }), await heard.next() != nil {}
        let summary = seen.withLock { $0 }
        #expect(summary == [
            "remote-pic state downloading", "remote-pic progress downloading", "remote-pic state playing",
            "remote-pic state idle", "a state playing", "a position playing", "a position playing", "a state paused",
            "a position paused",
        ], "\(summary)")
    }

    @Test func volumeAndMuteReachEveryPlayerAndKeepTheLevel() async throws {
        let session = session()
        try await session.toggle("a")
        #expect(session.setVolume(60) == AudioSettings(volume: 60, muted: false))
        #expect(engine.player("a")?.settings.volume == 60, "the playing item at once")
        #expect(session.changeVolume(by: 200).volume == 150, "clamped to 150")
        #expect(session.setMuted(nil) == AudioSettings(volume: 150, muted: true))
        try await session.toggle("b")
        // An item alone: ReplayGain's auto is the track's gain.
        #expect(engine.player("b")?.settings == AudioSettings(volume: 150, muted: true, replayGain: .track), "a new player starts with them")
        engine.player("b")?.controls(.key(.character("m")))
        engine.player("b")?.controls(.key(.character("9")))
        #expect(session.audioSettings == AudioSettings(volume: 145, muted: false), "the window's 9 and m, through the session")
        #expect(engine.player("a")?.settings == AudioSettings(volume: 145, muted: false, replayGain: .track))
    }

    /// A feed for the playlist: audio, a picture (skipped), video, audio.
    func playlistSession(_ mode: PlaylistMode) -> MediaSession {
        let items = [feed.items[0], feed.items[2], feed.items[1], feed.items[3]].enumerated().map { offset, item in
            var item = item
            item.position = offset + 1
            return item
        }
        return MediaSession(feed: Feed(title: "p", items: items), store: store, positions: nil, engine: engine, playlist: mode)
    }

    /// A player is told whether autoplay will follow it (then its device is
    /// handed on before its end: gapless), and told again when the modes change.
    @Test func aPlayerKnowsWhetherAnItemFollowsIt() async throws {
        let session = playlistSession(PlaylistMode(autoplay: true))
        try await session.toggle("a")
        #expect(engine.player("a")?.followed == true, "b comes next")
        session.setPlaylist(autoplay: false)
        #expect(engine.player("a")?.followed == false)
        session.setPlaylist(autoplay: true)
        try await session.toggle("remote")
        #expect(engine.player("remote")?.followed == false, "the last item, no repeat")
        session.setPlaylist(repeat: .all)
        #expect(engine.player("remote")?.followed == true, "repeating all: the first comes next")
    }

    @Test func autoplayPlaysOnAndSkipsPictures() async throws {
        let session = playlistSession(PlaylistMode(autoplay: true))
        try await session.toggle("a")
        engine.player("a")?.finish()
        try await eventually(session) { engine.player("b")?.currentState == .playing }
        #expect(engine.player("pic") == nil, "the picture was skipped")
        engine.player("b")?.finish()
        try await eventually(session) { engine.player("remote")?.currentState == .playing }
        try await finishAndSettle(session, "remote")
        #expect(engine.players.count == 3, "the end of the playlist: nothing more")
        #expect(session.currentStatus()?.id == "remote" && session.currentStatus()?.state == .ended)
    }

    @Test func autoplayOffStopsAtTheEndOfTheItem() async throws {
        let session = playlistSession(PlaylistMode(autoplay: false))
        try await session.toggle("a")
        try await finishAndSettle(session, "a")
        #expect(engine.players.count == 1)
    }

    @Test func repeatOneAndRepeatAllGoRound() async throws {
        let session = playlistSession(PlaylistMode(autoplay: true, repeat: .one))
        try await session.toggle("remote")
        engine.player("remote")?.advance(5)
        engine.player("remote")?.finish()
        try await eventually(session) { engine.players.count == 2 }
        #expect(engine.players.last?.key == "remote" && engine.players.last?.start == 0, "the same item again, from the top")
        session.setPlaylist(repeat: .all)
        engine.player("remote")?.finish()
        try await eventually(session) { engine.players.count == 3 }
        #expect(engine.players.last?.key == "a", "past the last, the first")
    }

    @Test func nextAndPreviousStopAtTheEndsUnlessRepeating() async throws {
        let session = playlistSession(PlaylistMode(autoplay: false))
        #expect(try await session.next().id == "a", "nothing current: the first")
        #expect(try await session.next().id == "b")
        #expect(try await session.previous().id == "a")
        await #expect(throws: CommandError.self) { try await session.previous() }
        session.setPlaylist(repeat: .all)
        #expect(try await session.previous().id == "remote", "round to the last")
        #expect(session.status(of: "a")?.state == .stopped, "the item skipped is stopped (its position kept), not left paused holding its player")
    }

    @Test func shufflePlaysEveryItemOnceInAFixedOrder() async throws {
        var items: [FeedItem] = []
        for number in 1...20 {
            items.append(FeedItem(position: number, id: "t\(number)", title: "T\(number)", kind: .audio, source: .file(feed.items[0].source!.description)))
        }
        let session = MediaSession(feed: Feed(title: "s", items: items), store: store, positions: nil, engine: engine,
                                   playlist: PlaylistMode(autoplay: false, shuffle: true))
        var played: [ItemKey] = []
        for _ in 0..<20 { played.append(try await session.next().id) }
        #expect(Set(played).count == 20, "every item once before any repeats")
        #expect(played != items.map(\.key), "not the feed's order (1 in 20! to fail)")
        await #expect(throws: CommandError.self) { try await session.next() }
        session.setPlaylist(repeat: .all)
        var again: [ItemKey] = []
        for _ in 0..<20 { again.append(try await session.next().id) }
        #expect(again == played, "the order holds until shuffle is turned off")
    }

    @Test func speedReachesEveryPlayerFromEveryFrontEnd() async throws {
        let session = session()
        try await session.toggle("b")
        #expect(session.setSpeed(1.5).speed == 1.5)
        #expect(engine.player("b")?.settings.speed == 1.5, "the playing item at once")
        #expect(session.setSpeed(9).speed == 4, "clamped to 4")
        engine.player("b")?.controls(.key(.character("[")))
        #expect(session.audioSettings.speed == 3.64, "[ in the window: 4 / 1.1, to two decimals")
        engine.player("b")?.controls(.key(.backspace))
        #expect(session.audioSettings.speed == 1, "backspace: back to 1")
        #expect(session.audioSettings.volume == 100, "the volume untouched")
    }
}
