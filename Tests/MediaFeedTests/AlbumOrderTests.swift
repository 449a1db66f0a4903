import Testing
@testable import MediaFeed
import MediaModel

@Suite struct AlbumOrderTests {
    private func feed(_ paths: [String]) -> Feed {
        Feed(title: "Music", items: paths.enumerated().map { index, path in
            FeedItem(position: index + 1, id: path, title: path, kind: path.hasSuffix(".jpg") ? .image : .audio, source: .file(path))
        })
    }

    @Test func tagNumbers() {
        #expect(MediaDetails.tagNumber("3") == 3)
        #expect(MediaDetails.tagNumber("03/12") == 3)
        #expect(MediaDetails.tagNumber(" 7 / 9") == 7)
        #expect(MediaDetails.tagNumber("A1") == nil)
        #expect(MediaDetails.tagNumber("") == nil)
        #expect(MediaDetails.tagNumber("99999999999999999999") == nil, "range-checked, never a trap")
        #expect(MediaDetails.tagNumber("-1") == nil)
    }

    @Test func aTaggedFolderPlaysByDiscThenTrackInItsOwnPlaces() {
        let paths = ["/m/A/a.mp3", "/m/A/b.mp3", "/m/A/c.mp3", "/m/A/pic.jpg", "/m/B/x.mp3", "/m/B/y.mp3"]
        let details: [MediaDetails?] = [
            MediaDetails(track: 1, disc: 2), MediaDetails(track: 2), MediaDetails(track: 1), nil,
            // B is half tagged: its path order stays.
            MediaDetails(track: 2), nil,
        ]
        let (ordered, moved) = AlbumOrder.apply(to: feed(paths), details: details)
        #expect(ordered.items.map(\.id) == ["/m/A/c.mp3", "/m/A/b.mp3", "/m/A/a.mp3", "/m/A/pic.jpg", "/m/B/x.mp3", "/m/B/y.mp3"])
        #expect(ordered.items.map(\.position) == Array(1...6), "numbered again")
        #expect(moved[0]?.track == 1 && moved[0]?.disc == nil && moved[2]?.disc == 2, "details follow their items")
    }

    @Test func titlesFromTagsOnlyWhereTheFeedGaveNone() {
        var derived = feed(["/m/a.mp3", "/m/b.mp3"])
        derived.items[0].titleIsDerived = true
        derived.takeTitles(from: [MediaDetails(title: " Tune "), MediaDetails(title: "Tagged")])
        #expect(derived.items.map(\.title) == ["Tune", "/m/b.mp3"])
    }
}
