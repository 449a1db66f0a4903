import MediaFeed
import MediaModel
@testable import MediaSession
import Testing
import TestKit

/// The playlist alone: order, steps and successors under every mode, with
/// a seeded generator for shuffle.
@Suite struct PlaylistTests {
    static let feed = try! FeedDecoder.decode(Array("""
        [{"id": "a", "type": 1, "title": "A", "url": "file:///a.wav"},
         {"id": "pic", "type": 0, "title": "Picture", "url": "file:///p.png"},
         {"id": "b", "type": 2, "title": "B", "url": "file:///b.mp4"},
         {"id": "bad", "type": 9, "title": "Bad", "url": "file:///x"},
         {"id": "c", "type": 1, "title": "C", "url": "file:///c.wav"}]
        """.utf8))

    @Test func inOrderItSkipsPicturesAndInvalidItems() {
        let playlist = Playlist(items: Self.feed.items, mode: PlaylistMode())
        #expect(playlist.order == ["a", "b", "c"])
        #expect(playlist.step(from: nil, by: 1) == "a" && playlist.step(from: nil, by: -1) == "c")
        #expect(playlist.step(from: "a", by: 1) == "b" && playlist.step(from: "c", by: 1) == nil)
        #expect(playlist.step(from: "pic", by: 1) == "a", "from outside the order: the first")
        #expect(playlist.successor(after: Self.feed.items[0]) == "b")
        #expect(playlist.successor(after: Self.feed.items[4]) == nil, "the end")
        #expect(playlist.successor(after: Self.feed.items[1]) == nil, "a picture does not play on")
    }

    @Test func repeatAndAutoplay() {
        var playlist = Playlist(items: Self.feed.items, mode: PlaylistMode(repeat: .all))
        #expect(playlist.step(from: "c", by: 1) == "a" && playlist.step(from: "a", by: -1) == "c")
        #expect(playlist.successor(after: Self.feed.items[4]) == "a")
        playlist.set(repeat: .one)
        #expect(playlist.successor(after: Self.feed.items[2]) == "b")
        playlist.set(autoplay: false)
        #expect(playlist.successor(after: Self.feed.items[2]) == nil)
        #expect(playlist.step(from: "a", by: 1) == "b", "next works without autoplay")
    }

    @Test func shuffleKeepsItsOrderUntilTurnedOff() {
        var generator = SplitMix(seed: 7)
        var playlist = Playlist(items: Self.feed.items, mode: PlaylistMode(shuffle: true), using: &generator)
        let order = playlist.order
        #expect(Set(order) == ["a", "b", "c"] && order.count == 3)
        // The feed grows: the order stays, the new item joins it.
        let grown = try! FeedDecoder.decode(Array(#"[{"id": "d", "type": 1, "title": "D", "url": "file:///d.wav"}]"#.utf8)).items
        playlist.update(items: Self.feed.items + grown.map { item in var item = item; item.position = 6; return item }, using: &generator)
        #expect(playlist.order.filter { $0 != "d" } == order && playlist.order.contains("d"))
        playlist.set(shuffle: false, using: &generator)
        #expect(playlist.order == ["a", "b", "c", "d"])
    }
}

/// When a playback counts as played: its last 10 seconds or its last 1 %,
/// whichever is shorter.
@Suite struct PlayedMarkTests {
    @Test func theLastTenSecondsOrTheLastPercent() {
        #expect(!ResumePositions.isPlayed(at: 7189, of: 7200) && ResumePositions.isPlayed(at: 7190, of: 7200), "two hours: the last 10 s")
        #expect(!ResumePositions.isPlayed(at: 59.3, of: 60) && ResumePositions.isPlayed(at: 59.4, of: 60), "a minute: the last 1 %")
        #expect(!ResumePositions.isPlayed(at: 100, of: nil) && !ResumePositions.isPlayed(at: 0, of: 0), "no length: never by position")
    }
}
