import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaSession
import SessionFakes
import Synchronization
import Testing
import TestKit

/// The session tells a `PlayReporting` (a Subsonic server's now-playing and
/// scrobble) of each remote item that starts, and of each played to its
/// end; an item stopped part way is no play, and a local file is nobody's.
@Suite struct PlayReportingTests {
    final class Reports: PlayReporting {
        let heard = Mutex<[String]>([])
        func started(_ url: URL) { heard.withLock { $0.append("start " + url.lastPathComponent) } }
        func ended(_ url: URL) { heard.withLock { $0.append("end " + url.lastPathComponent) } }
        func flush() { heard.withLock { $0.append("flush") } }
        func refusal(of url: URL) -> String? { nil }
    }

    @Test func startsAndEndsAreReportedAndAStopIsNot() async throws {
        let folder = try TemporaryDirectory()
        let one = URL(string: "http://music.invalid/rest/one.view")!
        let two = URL(string: "http://music.invalid/rest/two.view")!
        let local = try folder.write("local.wav", "not decoded by the fake engine")
        let feed = Feed(title: "t", items: [
            FeedItem(position: 1, id: "one", title: "One", kind: .audio, source: .remote(one)),
            FeedItem(position: 2, id: "two", title: "Two", kind: .audio, source: .remote(two)),
            FeedItem(position: 3, id: "local", title: "Local", kind: .audio, source: .file(local)),
        ])
        let store = FakeStore([one: .succeeds(path: local), two: .succeeds(path: local)])
        let engine = FakeEngine()
        let reports = Reports()
        let session = MediaSession(feed: feed, store: store, positions: nil, engine: engine, reports: reports)
        try await session.toggle("one")
        let events = session.events()
        engine.player("one")?.finish()
        for await event in events where event.status.id == "one" && event.event == .state && event.status.state == .ended { break }
        try await session.toggle("two")
        _ = await session.stop()
        try await session.toggle("local")
        await session.shutdown()
        #expect(reports.heard.withLock { $0 } == ["start one.view", "end one.view", "start two.view", "flush"])
    }

    /// A play that ends as the session shuts down (`play`'s last item) is
    /// reported before the last reports are sent: the shutdown waits for
    /// the player's events to be heard, not only for the player.
    @Test(arguments: 0..<20)
    func anEndJustBeforeTheShutdownIsReportedBeforeTheFlush(_ run: Int) async throws {
        let folder = try TemporaryDirectory()
        let one = URL(string: "http://music.invalid/rest/one.view")!
        let local = try folder.write("local.wav", "not decoded by the fake engine")
        let feed = Feed(title: "t", items: [FeedItem(position: 1, id: "one", title: "One", kind: .audio, source: .remote(one))])
        let engine = FakeEngine()
        let reports = Reports()
        let session = MediaSession(feed: feed, store: FakeStore([one: .succeeds(path: local)]), positions: nil, engine: engine, reports: reports)
        try await session.toggle("one")
        engine.player("one")?.finish()
        await session.shutdown()
        #expect(reports.heard.withLock { $0 } == ["start one.view", "end one.view", "flush"])
    }
}
