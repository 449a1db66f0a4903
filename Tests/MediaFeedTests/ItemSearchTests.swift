import Foundation
import Testing
@testable import MediaFeed
import MediaModel

@Suite struct ItemSearchTests {
    static let items = [
        FeedItem(position: 1, id: "a", title: "Jóga", kind: .audio, source: .file("/music/homogenic/01 joga.flac")),
        FeedItem(position: 2, id: "b", title: "Unravel", kind: .audio, source: .file("/music/homogenic/02.flac"), description: "A quiet song"),
        FeedItem(position: 3, id: "c", title: "ÉCOLE", kind: .video, source: .remote(URL(string: "https://example.org/v/lesson.mp4")!)),
    ]
    static let details: [MediaDetails?] = [MediaDetails(artist: "Björk", album: "Homogenic"), MediaDetails(artist: "Björk"), nil]

    @Test func everyWordCaseAndAccentsAside() {
        let search = ItemSearch(items: Self.items, details: Self.details)
        #expect(search.matches("bjork") == [0, 1], "accents folded")
        #expect(search.matches("BJÖRK quiet") == [1], "every word")
        #expect(search.matches("ecole") == [2])
        #expect(search.matches("lesson") == [2], "the file name")
        #expect(search.matches("homogenic") == [0], "the album (not the folder: only the file name counts)")
        #expect(search.matches("") == [0, 1, 2])
        #expect(search.matches("  ") == [0, 1, 2])
        #expect(search.matches("zzz").isEmpty)
        #expect(search.matches("bjork", among: [1, 2]) == [1], "only among the candidates")
        // Typing on: the earlier words matched the candidates already.
        let first = search.matches("bjork")
        #expect(search.matches("bjork qui", among: first, previous: "bjork") == [1])
        #expect(search.matches("bjork quiet", among: [1], previous: "bjork qui") == [1])
    }

    @Test func aQueryThatGrewNarrowsThePreviousMatches() {
        #expect(ItemSearch.narrows("bjor", from: "bjo"))
        #expect(ItemSearch.narrows("bjo quiet", from: "bjo"))
        #expect(ItemSearch.narrows("xbjo", from: "bjo"), "contains the old word")
        #expect(!ItemSearch.narrows("bj", from: "bjo"))
        #expect(!ItemSearch.narrows("quiet", from: "bjo quiet"))
    }
}
