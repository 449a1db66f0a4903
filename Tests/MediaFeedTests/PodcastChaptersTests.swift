import Testing
@testable import MediaFeed
import MediaModel

@Suite struct PodcastChaptersTests {
    @Test func aChaptersFileReadsByStartAndSkipsWhatCannotBeUsed() {
        let text = #"{"version": "1.2.0", "chapters": [{"startTime": 90.5, "title": " Second "}, {"startTime": 0}, {"startTime": -3, "title": "Before"}, {"startTime": 1e400}, {"startTime": "12"}, {"startTime": 100, "toc": false}]}"#
        #expect(PodcastChapters.decode(Array(text.utf8)) == [Chapter(start: 0, title: "Chapter 2"), Chapter(start: 90.5, title: "Second")])
        #expect(PodcastChapters.decode(Array("<html>".utf8)) == nil)
        #expect(PodcastChapters.decode(Array(#"{"chapters": {}}"#.utf8)) == nil)
    }

    @Test func podloveChaptersInAnRSSItem() throws {
        let rss = """
            <rss version="2.0" xmlns:psc="http://podlove.org/simple-chapters"><channel><title>T</title>
            <item><title>E</title><enclosure url="https://example.org/e.mp3" type="audio/mpeg"/>
            <psc:chapters><psc:chapter start="00:01:30.5" title="B"/><psc:chapter start="0" title="A"/><psc:chapter start="soon" title="X"/></psc:chapters>
            </item></channel></rss>
            """
        let feed = try FeedDecoder.decode(Array(rss.utf8), origin: .unknown)
        #expect(feed.items[0].chapters == [Chapter(start: 0, title: "A"), Chapter(start: 90.5, title: "B")])
    }
}
