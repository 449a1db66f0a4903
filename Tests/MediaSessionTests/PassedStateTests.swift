import Foundation
import MediaFeed
import MediaModel
import MediaSession
import SessionFakes
import Testing
import TestKit

/// A short item on a busy machine can have ended by the time its player's
/// `playing` is handled: every subscriber still hears that it played, then
/// that it ended (`play`'s lines, `observe`, MPRIS, MPD's idle).
@Suite struct PassedStateTests {
    @Test func anItemEndedBeforeItsPlayingWasHandledIsHeardPlayingThenEnded() async throws {
        let folder = try TemporaryDirectory()
        let feed = Feed(title: "t", items: [
            FeedItem(position: 1, id: "one", title: "One", kind: .audio, source: .file(try folder.write("1.wav", "not decoded by the fake engine"))),
        ])
        let engine = FakeEngine()
        engine.endAtOnce("one")
        let session = MediaSession(feed: feed, store: nil, positions: nil, engine: engine)
        let events = session.events()
        try await session.toggle("one")
        var states: [ItemState] = []
        for await event in events where event.status.id == "one" && event.event == .state {
            states.append(event.status.state)
            if event.status.state.isFinal { break }
        }
        #expect(states.suffix(2) == [.playing, .ended], "\(states)")
        #expect(states.filter { $0 == .playing }.count == 1, "\(states)")
    }
}
