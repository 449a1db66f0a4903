import Foundation
import MediaModel
import Testing
@testable import MediaFeed

/// Values as right as feedparser's, or more (issue #44): dates with
/// offsets and in ISO 8601, Dublin Core's dates, namespaces however
/// spelled, Atom's Media RSS, JSON Feed by its version, titles as text.
@Suite struct FeedValueTests {
    static func date(_ text: String) -> String? {
        FeedDates.parse(text).map(FeedDates.text)
    }

    @Test func rfc822OffsetsZonesAndClocks() {
        #expect(Self.date("Sun, 14 Feb 2021 15:59:21 +13:00") == "2021-02-14T02:59:21Z", "the offset with a colon was dropped")
        #expect(Self.date("Sun, 14 Feb 2021 15:59:21 +1300") == "2021-02-14T02:59:21Z")
        #expect(Self.date("Sun, 14 Feb 2021 15:59:21 -05") == "2021-02-14T20:59:21Z")
        #expect(Self.date("Sun, 14 Feb 2021 15:59:21 GMT+1") == "2021-02-14T14:59:21Z")
        for (zone, hours) in [("UT", 0), ("GMT", 0), ("Z", 0), ("EST", -5), ("EDT", -4), ("CST", -6), ("CDT", -5), ("MST", -7), ("MDT", -6), ("PST", -8), ("PDT", -7), ("A", -1), ("M", -12), ("N", 1), ("Y", 12)] {
            let expected = FeedDates.text(Date(timeIntervalSince1970: 1_613_318_361 - Double(hours * 3600)))
            #expect(Self.date("Sun, 14 Feb 2021 15:59:21 \(zone)") == expected, "\(zone)")
        }
        #expect(Self.date("Sun, 14 Feb 2021 3:59:21 PM +0000") == "2021-02-14T15:59:21Z", "PM is not dropped")
        #expect(Self.date("Sun, 14 Feb 2021 12:05 AM GMT") == "2021-02-14T00:05:00Z")
        #expect(Self.date("14 Feb 2021") == "2021-02-14T00:00:00Z")
    }

    /// Month and weekday names in the languages feeds are written in.
    @Test func datesInOtherLanguages() {
        #expect(Self.date("Di, 14 Mär 2021 10:00:00 +0100") == "2021-03-14T09:00:00Z")
        #expect(Self.date("Sa, 01 Mai 2021 10:00:00 +0200") == "2021-05-01T08:00:00Z")
        #expect(Self.date("lun., 14 févr. 2022 08:00:00 +0100") == "2022-02-14T07:00:00Z")
        #expect(Self.date("mié, 14 dic 2022 08:00:00 GMT") == "2022-12-14T08:00:00Z")
        #expect(Self.date("ven, 03 ott 2025 08:00:00 +0000") == "2025-10-03T08:00:00Z")
        #expect(Self.date("14. Okt 2020 08:00:00 GMT") == "2020-10-14T08:00:00Z")
    }

    @Test func iso8601AsFeedsWriteIt() {
        #expect(Self.date("2021-02-14T15:59:21+13:00") == "2021-02-14T02:59:21Z")
        #expect(Self.date("2021-02-14T15:59:21+1300") == "2021-02-14T02:59:21Z")
        #expect(Self.date("2021-02-14T15:59+01") == "2021-02-14T14:59:00Z")
        #expect(Self.date("2021-02-14 15:59:21") == "2021-02-14T15:59:21Z")
        #expect(Self.date("2021-02-14") == "2021-02-14T00:00:00Z")
        #expect(Self.date("2021-02-14T15:59:21.123Z") == "2021-02-14T15:59:21Z")
        #expect(Self.date("2021-13-14") == nil && Self.date("2021-02-14T25:00:00Z") == nil && Self.date("soon") == nil)
    }

    /// ISO 8601 in `pubDate`; `dc:date` and `dcterms:*` where there is no `pubDate`.
    @Test func everyDateElementIsRead() throws {
        let feed = try FeedFormatTests.decode("""
        <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"><channel><title>D</title>
        <item><title>a</title><pubDate>2021-02-14T15:59:21+13:00</pubDate></item>
        <item><title>b</title><dc:date>2020-01-01T00:00:00Z</dc:date></item>
        <item><title>c</title><dcterms:issued>2020-01-02</dcterms:issued><dcterms:modified>2020-05-05</dcterms:modified></item>
        <item><title>d</title><dcterms:modified>2020-01-03T10:00:00-02:00</dcterms:modified></item>
        <item><title>e</title><dcterms:created>2020-01-04</dcterms:created></item>
        </channel></rss>
        """)
        #expect(feed.items.map { $0.published.map(FeedDates.text) } == [
            "2021-02-14T02:59:21Z", "2020-01-01T00:00:00Z", "2020-01-02T00:00:00Z", "2020-01-03T12:00:00Z", "2020-01-04T00:00:00Z",
        ])
    }

    /// Apple's first spelling of its namespace, https, and a trailing slash
    /// or its absence: the duration and image are read alike.
    @Test(arguments: [
        "http://www.itunes.com/DTDs/Podcast-1.0.dtd", "https://www.itunes.com/dtds/podcast-1.0.dtd", "http://www.itunes.com/dtds/podcast-1.0.dtd/",
    ])
    func namespaceSpellings(itunes: String) throws {
        let feed = try FeedFormatTests.decode("""
        <rss version="2.0" xmlns:i="\(itunes)" xmlns:m="http://search.yahoo.com/mrss"><channel><title>N</title>
        <i:image href="https://example.org/c.jpg"/>
        <item><title>a</title><enclosure url="https://example.org/a.mp3" type="audio/mpeg"/><i:duration>90</i:duration></item>
        <item><title>b</title><m:content url="https://example.org/b.mp4" type="video/mp4"/></item>
        </channel></rss>
        """)
        #expect(feed.items[0].duration == 90 && feed.items[0].thumbnail?.description == "https://example.org/c.jpg")
        #expect(feed.items[1].kind == .video)
        #expect(feed.repairs.isEmpty)
    }

    /// A video channel's Atom feed: its media in a `media:group`.
    @Test func atomMediaGroupContentAndThumbnail() throws {
        let feed = try FeedFormatTests.decode("""
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
          <title>Videos</title>
          <entry><id>v1</id><title>Clip</title><published>2024-01-01T00:00:00+00:00</published>
            <media:group><media:title>Clip</media:title>
              <media:content url="https://example.org/v1.mp4" type="video/mp4" width="640" height="360" duration="61"/>
              <media:thumbnail url="https://example.org/v1.jpg" width="480" height="360"/>
              <media:description>About the clip</media:description>
            </media:group></entry>
          <entry><id>v2</id><title>Bare</title><media:content url="https://example.org/v2" medium="audio"/></entry>
        </feed>
        """)
        #expect(feed.items[0].source?.description == "https://example.org/v1.mp4" && feed.items[0].kind == .video)
        #expect(feed.items[0].thumbnail?.description == "https://example.org/v1.jpg")
        #expect(feed.items[0].duration == 61 && feed.items[0].description == "About the clip")
        #expect(feed.items[1].kind == .audio, "Media RSS's medium when there is no type")
    }

    /// JSON Feed's version however spelled; mediaplay's own JSON with a
    /// `version` of its own stays mediaplay's.
    @Test(arguments: ["1.1", "1", "https://jsonfeed.org/version/1.1/", "http://JSONFeed.org/version/1", "https://jsonfeed.org/version/1"])
    func jsonFeedByItsVersion(version: String) throws {
        let feed = try FeedFormatTests.decode(#"{"version": "\#(version)", "title": "J", "items": [{"id": "1", "title": "One", "attachments": [{"url": "https://e.org/1.mp3", "mime_type": "audio/mpeg"}]}]}"#)
        #expect(feed.items.map(\.invalidReason) == [nil] && feed.items[0].kind == .audio, "\(version)")
        let ours = try FeedFormatTests.decode(#"{"version": "1.1", "items": [{"type": "audio", "title": "Ours", "url": "https://e.org/2.mp3"}]}"#)
        #expect(ours.items[0].isValid && ours.items[0].title == "Ours")
    }

    /// Titles as text: xhtml's escaped markup kept as characters, html's
    /// taken out, RSS's when it looks like HTML, base64 decoded.
    @Test func titlesAreText() throws {
        let atom = try FeedFormatTests.decode("""
        <feed xmlns="http://www.w3.org/2005/Atom">
          <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">History of the &lt;blink&gt; tag</div></title>
          <entry><id>1</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more</title></entry>
          <entry><id>2</id><title type="text">a &lt; b</title></entry>
          <entry><id>3</id><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><em>Em</em>  phasis</div></title></entry>
        </feed>
        """)
        #expect(atom.title == "History of the <blink> tag")
        #expect(atom.items.map(\.title) == ["Bold & more", "a < b", "Em phasis"])
        let rss = try FeedFormatTests.decode("""
        <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>R &amp;amp; D</title>
        <item><title><![CDATA[<i>Italic</i> title]]></title></item>
        <item><title>AT&amp;T's x &lt; y</title></item>
        <item><dc:title>From Dublin Core</dc:title></item>
        </channel></rss>
        """)
        #expect(rss.title == "R & D")
        #expect(rss.items.map(\.title) == ["Italic title", "AT&T's x < y", "From Dublin Core"])
    }
}
