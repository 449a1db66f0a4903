import Foundation
import MediaModel
import Testing
@testable import MediaFeed

/// Every format mediaplay reads, told by content: what each field becomes.
@Suite struct FeedFormatTests {
    static func decode(_ text: String, origin: FeedOrigin = .file(path: "/music/list")) throws -> Feed {
        try FeedDecoder.decode(Array(text.utf8), origin: origin)
    }

    static func error(_ text: String, origin: FeedOrigin = .unknown) -> FeedError? {
        do {
            _ = try FeedDecoder.decode(Array(text.utf8), origin: origin)
            return nil
        } catch {
            return error
        }
    }

    static let podcast = """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
      <channel>
        <title>Night &amp; Day</title>
        <itunes:image href="https://example.org/cover.jpg"/>
        <item>
          <title>Episode 2</title>
          <guid isPermaLink="false">ep-2</guid>
          <enclosure url="https://example.org/ep2.mp3" type="audio/mpeg" length="123456"/>
          <itunes:duration>1:02:03</itunes:duration>
          <pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate>
          <description>short</description>
          <content:encoded><![CDATA[<p>First &amp; more.</p><p>Second<br/>line &#8212; end</p>]]></content:encoded>
          <itunes:image href="https://example.org/ep2.jpg"/>
        </item>
        <item>
          <title>Notes only</title>
          <description>No audio here</description>
        </item>
        <item>
          <enclosure url="https://example.org/media/talk.MP4"/>
          <itunes:duration>95</itunes:duration>
          <pubDate>Wed, 02 Oct 2002 08:00:00 -0400</pubDate>
        </item>
        <item>
          <title>Broken</title>
          <enclosure url="ftp://example.org/x.mp3" type="audio/mpeg"/>
        </item>
      </channel>
    </rss>
    """

    @Test func podcastRSSMapsEveryField() throws {
        let feed = try Self.decode(Self.podcast, origin: .remote(URL(string: "https://example.org/feed")!))
        #expect(feed.title == "Night & Day")
        #expect(feed.items.count == 4)
        let episode = feed.items[0]
        #expect(episode.id == "ep-2" && episode.title == "Episode 2" && episode.kind == .audio)
        #expect(episode.source == .remote(URL(string: "https://example.org/ep2.mp3")!))
        #expect(episode.duration == 3723)
        #expect(episode.published.map(FeedDates.text) == "2003-06-10T04:00:00Z")
        #expect(episode.description == "First & more.\n\nSecond\nline — end", "content:encoded, as plain text with its paragraphs")
        #expect(episode.thumbnail == .remote(URL(string: "https://example.org/ep2.jpg")!), "the item's own image first")
        #expect(episode.location.line == 6)
        let notes = feed.items[1]
        #expect(notes.isValid && notes.source == nil && notes.kind == nil, "no enclosure: words only")
        let talk = feed.items[2]
        #expect(talk.kind == .video, "no type: the URL's extension")
        #expect(talk.title == "talk" && talk.duration == 95)
        #expect(talk.thumbnail == .remote(URL(string: "https://example.org/cover.jpg")!), "else the channel's")
        #expect(talk.published.map(FeedDates.text) == "2002-10-02T12:00:00Z")
        #expect(feed.items[3].invalidReason?.contains("unsupported scheme \"ftp\"") == true, "one bad record never sinks the others")
    }

    @Test func atomEntriesWithEnclosures() throws {
        let feed = try Self.decode("""
        <feed xmlns="http://www.w3.org/2005/Atom">
          <title>Atom Cast</title>
          <entry>
            <id>tag:example.org,2024:1</id>
            <title>First</title>
            <link rel="alternate" href="https://example.org/1.html"/>
            <link rel="enclosure" type="audio/ogg" href="https://example.org/1.ogg" length="10"/>
            <published>2024-05-01T10:00:00+02:00</published>
            <summary type="html">&lt;b&gt;Bold&lt;/b&gt; words</summary>
          </entry>
          <entry><id>2</id><title>Post</title></entry>
        </feed>
        """, origin: .remote(URL(string: "https://example.org/atom")!))
        #expect(feed.title == "Atom Cast")
        #expect(feed.items.map(\.id) == ["tag:example.org,2024:1", "2"])
        #expect(feed.items[0].kind == .audio && feed.items[0].source?.description == "https://example.org/1.ogg")
        #expect(feed.items[0].published.map(FeedDates.text) == "2024-05-01T08:00:00Z")
        #expect(feed.items[0].description == "Bold words")
        #expect(feed.items[1].source == nil && feed.items[1].isValid)
    }

    @Test func jsonFeedAttachmentsImagesAndIds() throws {
        let feed = try Self.decode("""
        {"version": "https://jsonfeed.org/version/1.1", "title": "JF", "items": [
          {"id": 7, "title": "Attached", "content_html": "<p>Hi &amp; bye</p>", "image": "https://e.org/t.jpg",
           "date_published": "2020-01-02T03:04:05Z",
           "attachments": [{"url": "https://e.org/a.m4a", "mime_type": "audio/x-m4a", "duration_in_seconds": 61.5, "size_in_bytes": 100}]},
          {"id": "pic", "image": "https://e.org/p.jpg"},
          {"title": "no id", "attachments": [{"url": "https://e.org/b.mp3", "mime_type": "audio/mpeg"}]},
          {"id": "words", "content_text": "Just words"}
        ]}
        """, origin: .remote(URL(string: "https://e.org/feed.json")!))
        #expect(feed.title == "JF")
        let first = feed.items[0]
        #expect(first.id == "7" && first.kind == .audio && first.duration == 61.5)
        #expect(first.description == "Hi & bye" && first.thumbnail?.description == "https://e.org/t.jpg")
        #expect(first.published.map(FeedDates.text) == "2020-01-02T03:04:05Z")
        #expect(feed.items[1].kind == .image && feed.items[1].source?.description == "https://e.org/p.jpg")
        #expect(feed.items[2].invalidReason == "missing \"id\" (JSON Feed 1.1 requires a unique id per item)")
        #expect(feed.items[3].isValid && feed.items[3].source == nil && feed.items[3].description == "Just words")
    }

    @Test func m3uWithExtinfAndRelativePaths() throws {
        let feed = try Self.decode("""
        #EXTM3U
        #PLAYLIST:Mix
        #EXTINF:123,Artist - Song, with a comma
        one.mp3
        #EXTINF:-1 tvg-name="A, B",Radio
        http://radio.example.org:8000/stream

        ../up/two.flac
        /abs/three.ogg
        file:///abs/four.wav
        """, origin: .file(path: "/music/lists/mix.m3u"))
        #expect(feed.title == "Mix")
        #expect(feed.items.map(\.title) == ["Artist - Song, with a comma", "Radio", "two", "three", "four"])
        #expect(feed.items.map(\.source?.description) == ["/music/lists/one.mp3", "http://radio.example.org:8000/stream", "/music/up/two.flac", "/abs/three.ogg", "/abs/four.wav"])
        #expect(feed.items[0].duration == 123 && feed.items[1].duration == nil, "-1 is a stream: no length")
        #expect(feed.items.map(\.kind) == [.audio, .audio, .audio, .audio, .audio])
        #expect(feed.items[0].location.line == 4)
    }

    /// A playlist from the network names URLs only.
    @Test func aRemotePlaylistCannotReachALocalFile() throws {
        let feed = try Self.decode("""
        #EXTM3U
        /etc/passwd
        file:///etc/passwd
        ../../secret.mp3
        sub/../ok.mp3
        song.mp3
        """, origin: .remote(URL(string: "https://example.org/lists/a.m3u")!))
        #expect(feed.items[0].invalidReason == "a playlist from the network cannot name local files (/etc/passwd)")
        #expect(feed.items[1].invalidReason?.contains("cannot point at local files") == true)
        #expect(feed.items[2].invalidReason == "\"../../secret.mp3\" climbs out of the playlist's folder")
        #expect(feed.items[3].source?.description == "https://example.org/lists/ok.mp3")
        #expect(feed.items[4].source?.description == "https://example.org/lists/song.mp3")
        #expect(feed.items.allSatisfy { $0.source?.isRemote != false })
    }

    @Test func plsInEntryOrder() throws {
        let feed = try Self.decode("""
        [playlist]
        File2=http://radio.example.org/b.mp3
        Title2=Second
        File1=http://radio.example.org/a
        Title1=Radio A
        Length1=-1
        Length2=240
        NumberOfEntries=2
        Version=2
        """)
        #expect(feed.items.map(\.title) == ["Radio A", "Second"])
        #expect(feed.items.map(\.duration) == [nil, 240])
    }

    @Test func theFormatIsToldByContentNotName() throws {
        let origin = FeedOrigin.file(path: "/x/feed.json")
        #expect(try Self.decode(Self.podcast, origin: origin).items.count == 4)
        #expect(try Self.decode("song.mp3\nother.ogg\n", origin: origin).items.count == 2, "a plain M3U")
        #expect(try Self.decode("\u{FEFF}#EXTM3U\nsong.mp3", origin: origin).items.count == 1, "after a byte order mark")
    }

    @Test func unreadableDocumentsSayWhatTheyAre() {
        #expect(Self.error("hello world")?.message.hasPrefix("not a feed mediaplay reads (it starts with \"hello world\")") == true)
        #expect(Self.error(#"<opml version="2.0"><body/></opml>"#)?.message.contains("OPML") == true)
        #expect(Self.error("<html><body/></html>")?.message.contains("root is <html>") == true)
        #expect(Self.error("#EXTM3U\n#EXT-X-TARGETDURATION:10\nseg1.ts")?.message.contains("HLS") == true)
        // Read by recovery, its first error said (not the last, at its end).
        let malformed = try? Self.decode("<rss version=\"2.0\"><channel>\n<title>x</title><item><title>a</item></channel></rss>")
        #expect(malformed?.repairs.first?.hasPrefix("not well-formed XML (line 2: Opening and ending tag mismatch") == true, "\(malformed?.repairs ?? [])")
        #expect(Self.error("<<<>>>")?.message.isEmpty == false, "no element at all: still an error")
    }

    /// No entity is expanded and nothing outside the document is read.
    @Test func hostileXMLIsABoundedError() {
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [\n <!ENTITY l0 \"lol\">\n"
        for level in 1...9 { laughs += " <!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">\n" }
        laughs += "]>\n<rss version=\"2.0\"><channel><title>&l9;</title></channel></rss>"
        #expect(Self.error(laughs) != nil)
        let external = "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [ <!ENTITY s SYSTEM \"file:///etc/passwd\"> ]>\n<rss version=\"2.0\"><channel><title>&s;</title></channel></rss>"
        #expect(Self.error(external)?.message.contains("declares entities") == true)
        let dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE rss SYSTEM \"file:///etc/passwd\">\n<rss version=\"2.0\"><channel><title>T</title></channel></rss>"
        #expect((try? Self.decode(dtd))?.title == "T", "an external DTD is never loaded")
    }

    @Test func htmlBecomesPlainText() {
        #expect(HTMLText.plain("<p>One</p><p>Two &amp; <b>three</b></p>") == "One\n\nTwo & three")
        #expect(HTMLText.plain("a<br>b<br/>c") == "a\nb\nc")
        #expect(HTMLText.plain("x &lt; y &#x41;&#66; &bogus; 5 < 6") == "x < y AB &bogus; 5 < 6")
        #expect(HTMLText.plain("  spaced\n\n  out  ") == "spaced out")
    }

    @Test func feedDates() {
        #expect(FeedDates.rfc822("Tue, 10 Jun 2003 04:00:00 GMT").map(FeedDates.text) == "2003-06-10T04:00:00Z")
        #expect(FeedDates.rfc822("10 Jun 03 04:00 +0130").map(FeedDates.text) == "2003-06-10T02:30:00Z")
        #expect(FeedDates.rfc822("Sat, 01 Jan 2000 00:00:00 PST").map(FeedDates.text) == "2000-01-01T08:00:00Z")
        #expect(FeedDates.rfc3339("1969-12-31T23:59:59.5Z").map(FeedDates.text) == "1969-12-31T23:59:59Z")
        #expect(FeedDates.rfc3339("2024-02-29T12:00:00-05:00").map(FeedDates.text) == "2024-02-29T17:00:00Z")
        #expect(FeedDates.rfc822("yesterday") == nil && FeedDates.rfc3339("2024-13-01T00:00:00Z") == nil)
    }

    /// Found by the feed fuzzer: a first line that is neither a URL nor a path.
    @Test func oddFirstLinesAreUnknownNotACrash() {
        let bytes: [UInt8] = [0x3A, 0x54, 0x41, 0x49, 0x23, 0x45, 0x58, 0x53, 0x2F, 0x2F, 0x6C, 0x61, 0x45, 0x58, 0x53, 0x2F, 0x2F, 0x2F, 0xE3]
        #expect(throws: FeedError.self) { try FeedDecoder.decode(bytes) }
    }
}
