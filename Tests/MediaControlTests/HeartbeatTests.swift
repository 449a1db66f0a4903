import Foundation
import MediaFeed
import MediaModel
import MediaSession
import SessionFakes
import Testing
import TestKit

/// A toggle whose start waits (a download that does not end) keeps its
/// client informed: the item's state each beat of the daemon's clock, and
/// only then.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HeartbeatTests {
    @Test func aWaitingToggleHearsTheItemEachBeatOfTheClock() async throws {
        let clock = ManualClock()
        let folder = try TemporaryDirectory()
        let picture = try folder.write("slow.png", "not decoded by the fake engine")
        let url = URL(string: "http://media.invalid/slow.png")!
        // Half comes, then the download waits for `release`.
        let store = FakeStore([url: .waits(path: picture)])
        let feed = Feed(title: "t", items: [FeedItem(position: 1, id: "slow", title: "Slow", kind: .image, source: .remote(url))])
        let session = MediaSession(feed: feed, store: store, positions: nil, engine: FakeEngine())
        let daemon = try await DaemonUnderTest(clock: clock, session: session)
        let client = try RawClient(daemon.paths)
        // No expiry: a beat of 2 s.
        try client.send(#"{"id":1,"cmd":"toggle","item":1}"# + "\n")
        let download = await client.next()
        #expect(download?["event"] as? String == "progress", "the download's half first: \(String(describing: download))")
        // Two sleepers: the connection's idle alarm and the heartbeat.
        await clock.waitForSleepers(2)
        clock.advance(by: 1.9)
        #expect(clock.sleeperCount == 2, "no heartbeat before its beat")
        clock.advance(by: 0.1)
        for beat in 1...3 {
            let heard = await client.next()
            #expect(heard?["event"] as? String == "progress" && heard?["item"] as? Int == 1 && heard?["state"] as? String == "downloading",
                    "beat \(beat): \(String(describing: heard))")
            await clock.waitForSleepers(2)
            if beat < 3 { clock.advance(by: 2) }
        }
        store.release(url)
        let reply = await client.next()
        #expect(reply?["id"] as? Int == 1 && reply?["ok"] as? Bool == true, "the reply next, no heartbeat without the clock: \(String(describing: reply))")
        await daemon.stop()
    }
}
