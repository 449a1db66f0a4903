import Foundation
import MediaFeed
import MediaModel
import MediaSession
import SessionFakes
import Testing
import TestKit

/// The sleep timer and chapters through the session, over the fakes: the
/// fade armed on what plays and carried to the next item, the time left
/// following playback, its two ends; a podcast's chapters file read through
/// the store, once.
@Suite struct SessionSleepAndChapterTests {
    let folder: TemporaryDirectory
    let engine = FakeEngine()
    let items: [FeedItem]
    static let episode = URL(string: "http://media.invalid/ep.mp3")!
    static let chapters = URL(string: "http://media.invalid/ep/chapters.json")!
    static let document = Array(#"{"version": "1.2.0", "chapters": [{"startTime": 0, "title": "Cold open"}, {"startTime": 15, "title": "Interview"}]}"#.utf8)

    init() throws {
        folder = try TemporaryDirectory()
        let audio = try folder.write("a.wav", "not decoded by the fake engine")
        var episode = FeedItem(position: 3, id: "ep", title: "Episode", kind: .audio, source: .remote(Self.episode))
        episode.chaptersURL = Self.chapters
        items = [
            FeedItem(position: 1, id: "a", title: "A", kind: .audio, source: .file(audio)),
            FeedItem(position: 2, id: "b", title: "B", kind: .audio, source: .file(audio)),
            episode,
        ]
    }

    func session(_ store: FakeStore, autoplay: Bool = false, problems: (@Sendable (String) -> Void)? = nil) -> MediaSession {
        MediaSession(feed: Feed(title: "t", items: items), store: store, positions: nil, engine: engine, playlist: PlaylistMode(autoplay: autoplay), problems: problems)
    }

    /// Waits for the session's event on `key` that `matches`.
    func heard(_ events: inout AsyncStream<ItemEvent>.Iterator, _ key: ItemKey, _ matches: (ItemEvent) -> Bool) async {
        while let event = await events.next() {
            if event.status.id == key && matches(event) { return }
        }
    }

    @Test func theFadeFollowsPlaybackAndPausesAtItsEnd() async throws {
        let session = session(FakeStore([:]))
        var events = session.events().makeAsyncIterator()
        try await session.toggle("a")
        engine.player("a")?.advance(10)
        #expect(try await session.perform(.sleep(.after(30))) == .sleep(SleepStatus(remaining: 30)))
        #expect(engine.player("a")?.fadeOut == 30...40, "the last ten seconds")
        #expect(try await session.perform(.sleep(.off)) == .sleep(.off))
        #expect(engine.player("a")?.fadeOut == nil, "cleared: the fade is gone")
        try await session.perform(.sleep(.after(30)))
        engine.player("a")?.advance(15)
        await heard(&events, "a") { $0.status.position == 25 }
        #expect(session.sleepStatus.remaining == 15, "the time left follows the position")
        // The player pauses at the fade's end (the engine does; the fake is told).
        engine.player("a")?.advance(15)
        engine.player("a")?.pause()
        await heard(&events, "a") { $0.event == .state && $0.status.state == .paused }
        #expect(session.sleepStatus == .off, "its pause ended the timer")
    }

    @Test func aTimeBeyondTheItemsEndCarriesOverToTheNextItem() async throws {
        let session = session(FakeStore([:]))
        try await session.toggle("a")
        try await session.perform(.sleep(.after(100)))
        #expect(engine.player("a")?.fadeOut == 90...100)
        try await session.toggle("b")
        #expect(engine.player("b")?.fadeOut == 90...100, "armed on what plays now, with the time left")
    }

    @Test func sleepAtTheEndOfTheItemStopsAutoplay() async throws {
        let session = session(FakeStore([:]), autoplay: true)
        try await session.toggle("a")
        #expect(try await session.perform(.sleep(.endOfItem)) == .sleep(SleepStatus(atEnd: true)))
        #expect(engine.player("a")?.fadeOut == 50...60)
        var events = session.events().makeAsyncIterator()
        engine.player("a")?.finish()
        await heard(&events, "a") { $0.event == .state && $0.status.state == .ended }
        await session.settle()
        #expect(engine.players.count == 1, "nothing played on")
        #expect(session.sleepStatus == .off)
    }

    @Test func aPodcastsChaptersFileIsReadThroughTheStoreOnce() async throws {
        let store = FakeStore([Self.episode: .succeeds(path: folder.path + "/a.wav")], documents: [Self.chapters: Self.document])
        let session = session(store)
        var events = session.events().makeAsyncIterator()
        try await session.toggle("ep")
        // Said as `metadata`, or as `state` when it comes before the player's
        // first `playing` was said: whichever, it carries the chapters.
        await heard(&events, "ep") { $0.status.chapter != nil }
        #expect(session.status(of: "ep")?.chapter == ChapterStatus(number: 1, count: 2, title: "Cold open"))
        #expect(try await session.perform(.chapter(.next)).item?.chapter == ChapterStatus(number: 2, count: 2, title: "Interview"))
        #expect(engine.player("ep")?.currentPosition == 15)
        _ = await session.stop()
        try await session.toggle("ep")
        #expect(store.fetchedDocuments == [Self.chapters], "read once")
    }

    @Test func aChaptersFileThatCannotBeHadIsOnlyLogged() async throws {
        let (problems, problem) = AsyncStream.makeStream(of: String.self)
        let session = session(FakeStore([Self.episode: .succeeds(path: folder.path + "/a.wav")]), problems: { problem.yield($0) })
        #expect(try await session.toggle("ep").state == .playing)
        var said = problems.makeAsyncIterator()
        #expect(await said.next() == "chapters of \"Episode\" not fetched: HTTP 404 from media.invalid")
        #expect(session.status(of: "ep")?.chapter == nil)
        await #expect(throws: CommandError(.badRequest, "the current item has no chapters")) { try await session.perform(.chapter(.next)) }
    }
}
