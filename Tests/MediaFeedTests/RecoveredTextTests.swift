import Foundation
import Testing
@testable import MediaFeed

/// A feed read by libxml2's recovery keeps its text whole after the error:
/// libxml2 2.9 drops every entity reference past the first error ("Tom
/// &amp; Jerry" read as "Tom  Jerry"), so they reach it as character
/// references; CDATA, comments and attributes read as before.
@Suite struct RecoveredTextTests {
    static func feed(_ items: String) throws -> Feed {
        // <guid> closed as </gid>: not well-formed, and no mend but recovery reads it.
        let text = #"<rss version="2.0"><channel><title>Show &amp; Tell</title><item><title>First</title><guid>1</gid></item>"#
            + items + "</channel></rss>"
        return try FeedDecoder.decode(Array(text.utf8))
    }

    @Test func entitiesAfterTheErrorAreKept() throws {
        let feed = try Self.feed(#"<item><title>Tom &amp; Jerry &lt;3 &quot;live&quot; &apos;24 &gt; all</title>"#
            + #"<enclosure url="https://example.org/a.mp3?x=1&amp;y=2" type="audio/mpeg"/>"#
            + #"<description>a &amp;amp; b</description></item>"#)
        #expect(feed.repairs.contains { $0.contains("recovery") }, "\(feed.repairs)")
        let item = try #require(feed.items.last)
        #expect(item.title == #"Tom & Jerry <3 "live" '24 > all"#)
        #expect(item.source?.description == "https://example.org/a.mp3?x=1&y=2")
        #expect(item.description == "a & b", "an escaped entity in HTML notes is read once, as without the error")
    }

    @Test func cdataAndCommentsAreLeftAsWritten() throws {
        let feed = try Self.feed(#"<item><title><![CDATA[R&amp;D &lt;b&gt;]]></title><!-- &amp; --><enclosure url="https://example.org/b.mp3" type="audio/mpeg"/></item>"#)
        // CDATA's text is literal: "R&amp;D <b>" made plain as any HTML title is.
        #expect(feed.items.last?.title == PodcastReader.plainTitle("R&amp;D &lt;b&gt;"))
    }
}
