import Foundation
import MediaModel
import Testing
@testable import MediaFeed

/// What real feeds get wrong and every feed reader reads (issue #44): read
/// by mending it, and said (`Feed.repairs`); the older and other
/// syndication formats; still no DTD, no external entity, no expansion.
@Suite struct RealWorldFeedTests {
    static func decode(_ text: String) throws -> Feed {
        try FeedDecoder.decode(Array(text.utf8), origin: .remote(URL(string: "https://example.org/feed")!))
    }

    static func decode(bytes: [UInt8]) throws -> Feed {
        try FeedDecoder.decode(bytes, origin: .remote(URL(string: "https://example.org/feed")!))
    }

    // MARK: Recovery

    /// `itunes:` and `podcast:` used without a declaration (hand-written
    /// templates): read as their usual namespaces, and said.
    @Test func undeclaredPrefixesAreTheWellKnownNamespaces() throws {
        let feed = try Self.decode("""
        <rss version="2.0"><channel><title>Show</title>
        <itunes:owner><itunes:name>Someone</itunes:name></itunes:owner>
        <itunes:image href="https://example.org/cover.jpg"/>
        <item><title>One</title><enclosure url="https://example.org/1.mp3" type="audio/mpeg"/>
        <itunes:duration>01:02</itunes:duration><podcast:transcript url="https://example.org/1.vtt" type="text/vtt"/></item>
        </channel></rss>
        """)
        #expect(feed.items.count == 1)
        #expect(feed.items[0].duration == 62)
        #expect(feed.items[0].thumbnail?.description == "https://example.org/cover.jpg")
        #expect(feed.items[0].subtitles.map(\.source.description) == ["https://example.org/1.vtt"])
        #expect(feed.repairs == ["prefixes used without a declaration (itunes:, podcast:) read as their usual namespaces"], "\(feed.repairs)")
    }

    /// HTML's entities, a bare `&` in a URL and in text, a bare `<`: read
    /// as a browser would, and said.
    @Test func htmlEntitiesAndBareAmpersandsAreRead() throws {
        let feed = try Self.decode("""
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Caf&eacute; &amp; Bar&hellip;</title>
        <item><title>Tom & Jerry&nbsp;at 1 < 2</title><guid>a&b</guid>
        <enclosure url="https://example.org/x.mp3?a=1&b=2" type="audio/mpeg"/>
        <description><![CDATA[<p>Kept &hellip; as &amp; is</p>]]></description></item>
        </channel></rss>
        """)
        #expect(feed.title == "Café & Bar…")
        #expect(feed.items[0].title == "Tom & Jerry\u{A0}at 1 < 2")
        #expect(feed.items[0].id == "a&b")
        #expect(feed.items[0].source?.description == "https://example.org/x.mp3?a=1&b=2")
        #expect(feed.items[0].description == "Kept … as & is", "CDATA is left as it is, then made plain")
        #expect(feed.repairs.contains("3 HTML entities (&eacute; …) read as characters"), "\(feed.repairs)")
        #expect(feed.repairs.contains("4 bare & or < read as text"), "\(feed.repairs)")
    }

    /// An RSS 0.91 feed names Netscape's DTD (never loaded) and uses its
    /// entities: HTML's characters.
    @Test func entitiesOfAnUnloadedDTDAreHTMLs() throws {
        let feed = try Self.decode("""
        <?xml version="1.0" encoding="ISO-8859-1"?>
        <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">
        <rss version="0.91"><channel><title>Nouvelles</title>
        <item><title>R&eacute;sum&eacute; &mdash; &bogus;</title><link>https://example.org/1</link></item>
        </channel></rss>
        """)
        #expect(feed.items.map(\.title) == ["Résumé — &bogus;"])
        #expect(feed.repairs.first?.hasPrefix("4 entities no DTD here declares (&eacute; …)") == true, "\(feed.repairs)")
    }

    /// Latin-1 bytes under a UTF-8 declaration (or none): Windows-1252,
    /// byte by byte, UTF-8 kept where it is UTF-8.
    @Test func textThatIsNotUTF8IsReadAsWindows1252() throws {
        let bytes = Array(#"<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Caf"#.utf8) + [0xE9, 0x20, 0x93, 0x71, 0x94]
            + Array(" ☕</title><item><title>x</title></item></channel></rss>".utf8)
        let feed = try Self.decode(bytes: bytes)
        #expect(feed.title == "Café “q” ☕")
        #expect(feed.repairs == ["text not in UTF-8 (as declared) read as Windows-1252"], "\(feed.repairs)")
    }

    /// A declared encoding the bytes are not in, or that libxml2 does not
    /// know: read as UTF-8, and said.
    @Test(arguments: ["x-no-such-encoding", "EBCDIC-US", "UTF-32", "UTF-16"])
    func aWrongDeclaredEncodingFallsBack(encoding: String) throws {
        let feed = try Self.decode(#"<?xml version="1.0" encoding="\#(encoding)"?><rss version="2.0"><channel><title>Café</title></channel></rss>"#)
        #expect(feed.title == "Café")
        #expect(feed.repairs == ["its declared encoding \"\(encoding.lowercased())\" does not fit its bytes; read as UTF-8"], "\(feed.repairs)")
    }

    /// Blank lines before the XML declaration (a template's), and control characters.
    @Test func aStrayDeclarationAndControlCharacters() throws {
        let feed = try Self.decode("\n\n<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>A\u{1}B\u{B}</title></channel></rss>")
        #expect(feed.title == "AB")
        #expect(Set(feed.repairs) == ["2 control characters removed", "an XML declaration not at the start moved or removed"], "\(feed.repairs)")
    }

    /// HTML's empty tags left open (`<br>`, `<img …>`) are closed where
    /// they open: every item is read.
    @Test func openEmptyTagsAreClosed() throws {
        let feed = try Self.decode("""
        <rss version="2.0"><channel><title>T</title>
        <item><title>One</title><description>a<br>b<img src="x.png" alt="a>b"></br></description></item>
        <item><title>Two</title><link>https://example.org/2</link></item>
        </channel></rss>
        """)
        #expect(feed.items.map(\.title) == ["One", "Two"])
        #expect(feed.repairs == ["3 HTML tags like <br> closed"], "\(feed.repairs)")
    }

    /// Tags that do not match (`<b>` not closed in a description not in
    /// CDATA): libxml2's recovery, with the first error in the note.
    @Test func mismatchedTagsAreReadByRecovery() throws {
        let feed = try Self.decode("""
        <rss version="2.0"><channel><title>T</title>
        <item><title>One</title><description>a<b>b</description><enclosure url="https://example.org/1.mp3" type="audio/mpeg"/></item>
        <item><title>Two</title></item>
        </channel></rss>
        """)
        #expect(feed.items.map(\.title).prefix(1) == ["One"])
        #expect(feed.repairs.count == 1 && feed.repairs[0].hasPrefix("not well-formed XML (line 2: Opening and ending tag mismatch: b line 2 and description"), "\(feed.repairs)")
    }

    /// A well-formed feed says nothing.
    @Test func aWellFormedFeedHasNoRepairs() throws {
        #expect(try FeedFormatTests.decode(FeedFormatTests.podcast).repairs.isEmpty)
    }

    /// Mending never lets a DTD's entities in: a document that declares
    /// entities is refused, whatever else is wrong with it.
    @Test func mendingStillRefusesDeclaredEntities() {
        let broken = "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [ <!ENTITY s SYSTEM \"file:///etc/passwd\"> <!ENTITY x \"&s;&s;\"> ]>\n<rss version=\"2.0\"><channel><title>&s; &hellip; a & b <br></title></channel></rss>"
        #expect(FeedFormatTests.error(broken)?.message.contains("declares entities") == true)
        let late = "<rss version=\"2.0\"><channel><title>&hellip;</title></channel></rss>\n<!DOCTYPE x [ <!ENTITY s SYSTEM \"file:///etc/passwd\"> ]><x>&s;</x>"
        #expect(FeedFormatTests.error(late)?.message.contains("declares entities") == true, "not read past by recovery")
    }

    // MARK: Formats

    /// Atom 0.3: its namespace, `issued`/`modified`, a base64 title, an escaped summary.
    @Test func atom03() throws {
        let feed = try Self.decode("""
        <?xml version="1.0" encoding="utf-8"?>
        <feed version="0.3" xmlns="http://purl.org/atom/ns#">
          <title mode="escaped" type="text/html">Old &amp;lt;Atom&amp;gt;</title>
          <entry>
            <title mode="base64" type="text/plain">SGVsbG8gd29ybGQ=</title>
            <id>tag:example.org,2004:1</id>
            <link rel="enclosure" type="audio/mpeg" href="https://example.org/1.mp3"/>
            <issued>2004-01-02T03:04:05-05:00</issued>
            <modified>2004-01-03T00:00:00Z</modified>
            <summary type="text/html" mode="escaped">&lt;b&gt;Bold&lt;/b&gt;</summary>
          </entry>
        </feed>
        """)
        #expect(feed.title == "Old <Atom>")
        #expect(feed.items.map(\.title) == ["Hello world"])
        #expect(feed.items[0].id == "tag:example.org,2004:1" && feed.items[0].kind == .audio)
        #expect(feed.items[0].published.map(FeedDates.text) == "2004-01-02T08:04:05Z")
        #expect(feed.items[0].description == "Bold")
        #expect(feed.repairs.isEmpty)
    }

    /// RSS 1.0: items beside the channel, `rdf:about` as the id, `dc:date`.
    @Test func rss10() throws {
        let feed = try Self.decode("""
        <?xml version="1.0"?>
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
                 xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:enc="http://purl.oclc.org/net/rss_2.0/enc#">
          <channel rdf:about="https://example.org/"><title>Semantic</title>
            <items><rdf:Seq><rdf:li rdf:resource="https://example.org/1"/></rdf:Seq></items></channel>
          <image rdf:about="https://example.org/logo.png"><url>https://example.org/logo.png</url></image>
          <item rdf:about="https://example.org/1"><title>First</title><link>https://example.org/1</link>
            <dc:date>2003-12-13T18:30:02+01:00</dc:date>
            <enc:enclosure rdf:resource="https://example.org/1.mp3" enc:type="audio/mpeg" enc:length="1"/></item>
          <item rdf:about="https://example.org/2"><dc:title>Second</dc:title></item>
        </rdf:RDF>
        """)
        #expect(feed.title == "Semantic")
        #expect(feed.items.map(\.title) == ["First", "Second"])
        #expect(feed.items.map(\.id) == ["https://example.org/1", "https://example.org/2"])
        #expect(feed.items[0].published.map(FeedDates.text) == "2003-12-13T17:30:02Z")
        #expect(feed.items[0].source?.description == "https://example.org/1.mp3" && feed.items[0].kind == .audio)
        #expect(feed.items[0].thumbnail?.description == "https://example.org/logo.png")
    }

    /// RSS 0.90: Netscape's namespace, items beside the channel.
    @Test func rss090() throws {
        let feed = try Self.decode("""
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/">
          <channel><title>Ninety</title><link>https://example.org/</link></channel>
          <item><title>Old</title><link>https://example.org/old</link></item>
        </rdf:RDF>
        """)
        #expect(feed.title == "Ninety" && feed.items.map(\.title) == ["Old"])
    }

    /// RSS whose elements are in a default namespace (UserLand's, or one of its own).
    @Test(arguments: ["http://backend.userland.com/rss2", "https://example.org/ns/rss"])
    func defaultNamespacedRSS(namespace: String) throws {
        let feed = try Self.decode("""
        <rss version="2.0" xmlns="\(namespace)"><channel><title>Spaced</title>
        <item><title>In</title><enclosure url="https://example.org/1.mp3" type="audio/mpeg"/></item></channel></rss>
        """)
        #expect(feed.title == "Spaced" && feed.items.map(\.title) == ["In"] && feed.items[0].kind == .audio)
    }

    /// `<feed>` in a namespace that is not Atom's says which, without contradicting itself.
    @Test func aFeedInAnotherNamespaceSaysWhich() {
        let message = FeedFormatTests.error(#"<feed xmlns="http://example.org/not-atom"><title>x</title></feed>"#)?.message ?? ""
        #expect(message.hasPrefix("an XML document whose root is <feed> in the namespace http://example.org/not-atom, not Atom's"), "\(message)")
    }

    /// UTF-16 and UTF-32 without a byte order mark, starting with blank
    /// lines; and the message for bytes that are no text shows escapes.
    @Test func utf16WithoutAMarkAfterBlankLines() throws {
        let text = "\n  <rss version=\"2.0\"><channel><title>Café</title></channel></rss>"
        for (encoding, _) in HostileFeedRoundFourTests.encodings {
            let feed = try Self.decode(bytes: HostileFeedRoundFourTests.encoded(text, encoding, mark: false))
            #expect(feed.title == "Café", "\(encoding)")
        }
        let message = HostileFeedRoundFourTests.error([0xFF, 0x00, 0x41, 0xC3, 0x28] + Array("xyz".utf8))?.message ?? ""
        #expect(message.hasPrefix(#"not a feed mediaplay reads (it starts with "\xFF\x00A\xC3(xyz")"#), "\(message)")
    }
}
