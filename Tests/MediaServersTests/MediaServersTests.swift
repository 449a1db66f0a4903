import Foundation
import MediaCache
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaplayCommon
import TestKit
import Testing

@testable import MediaServers

/// The pieces of the server feeds that need no server: the token's MD5,
/// the kept library, DIDL-Lite and SSDP answers read, the login added on
/// the wire only. (Against real servers: EndToEndTests' SubsonicFeedTests
/// and DLNAFeedTests.)
@Suite struct MediaServersTests {
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        // The Subsonic API's own example: md5("sesame" + "c19b2d").
        ("sesamec19b2d", "26719a1196d2a940705a59634eb18eab"),
    ])
    func md5MatchesRFC1321(_ text: String, _ digest: String) {
        #expect(MD5.hex(of: text) == digest)
    }

    @Test func theKeptLibraryReadsBackInArtistAndAlbumOrder() throws {
        var a = SubsonicSong(id: "2", title: "Two\tTabs")
        a.artist = "zebra"
        a.album = "Stripes"
        a.track = 2
        a.duration = 61.5
        var b = SubsonicSong(id: "1", title: "One")
        b.artist = "Zebra"
        b.album = "Stripes"
        b.track = 1
        b.coverArt = "al-1"
        var c = SubsonicSong(id: "x", title: "Aardvark song")
        c.artist = "Aardvark"
        c.isVideo = true
        let ordered = SubsonicLibrary.ordered([a, b, c])
        #expect(ordered.map(\.id) == ["x", "1", "2"])
        // A tab from a server is cleaned before it is kept.
        let page = try JSONParser.parse(Array(#"{"song": [{"id": "2", "title": "Two\tTabs"}]}"#.utf8)).value
        let cleaned = SubsonicLibrary.songs(in: page["song"]?.value)
        #expect(cleaned.first?.title == "Two Tabs")
        let library = SubsonicLibrary(auth: .hex, version: "1.10.2", songs: ordered.map { var song = $0; song.title = ServerText.clean(song.title); return song })
        let back = try #require(SubsonicLibrary(encoded: library.encoded))
        #expect(back.songs == library.songs)
        #expect(back.auth == .hex && back.version == "1.10.2")
        #expect(SubsonicLibrary(encoded: Array("not a library".utf8)) == nil)
    }

    /// A large library is made into items in two halves side by side: the
    /// items, their details and the URLs signed are the same, in order, as
    /// one by one.
    @Test func aLargeLibrarysItemsAreInOrder() throws {
        let server = try SubsonicServer(location: "subsonic+http://dan:pw@127.0.0.1:4040", login: nil)
        _ = SubsonicClient(server: server, auth: .hex, version: "1.10.2")
        let songs = (0..<4001).map { index in
            var song = SubsonicSong(id: "s\(index)", title: "Song \(index)")
            song.coverArt = index % 3 == 0 ? "al-\(index)" : nil
            song.track = index % 10 + 1
            return song
        }
        let loaded = SubsonicLibrary(auth: .hex, version: "1.10.2", songs: songs).loaded(server: server, shownAs: server.identity)
        #expect(loaded.feed.items.map(\.position) == Array(1...4001))
        #expect(loaded.feed.items.map(\.id) == songs.map(\.id))
        #expect(loaded.details?.map { $0?.track } == songs.map(\.track))
        #expect(loaded.feed.items.map { $0.thumbnail != nil } == songs.map { $0.coverArt != nil })
        for item in [loaded.feed.items[0], loaded.feed.items[2000], loaded.feed.items[4000]] {
            guard case let .remote(url)? = item.source else { Issue.record("no URL"); continue }
            #expect(RequestSigning.signed(url).absoluteString.contains("u=dan"), "\(url)")
        }
    }

    @Test func itemsCarryNoLoginAndTheWireDoes() throws {
        let server = try SubsonicServer(location: "subsonic+http://bob:p%40ss@music.example:4533/sub/", login: nil)
        #expect(server.identity == "subsonic+http://bob@music.example:4533/sub")
        let library = SubsonicLibrary(auth: .token, version: "1.16.1", songs: [SubsonicSong(id: "42", title: "Answer")])
        let loaded = library.loaded(server: server, shownAs: server.identity)
        let url = try #require(loaded.feed.items.first?.source?.description)
        #expect(url == "http://music.example:4533/sub/rest/stream.view?id=42&format=raw")
        #expect(loaded.feed.items.first?.id == "song-42")
        _ = SubsonicClient(server: server, auth: .token, version: "1.16.1")
        let signed = RequestSigning.signed(try #require(URL(string: url))).absoluteString
        #expect(signed.hasPrefix(url + "&u=bob&t="))
        #expect(!signed.contains("p@ss") && !signed.contains("p%40ss"))
        // The token is md5(password + salt).
        let query = try #require(URLComponents(string: signed)?.queryItems)
        let salt = try #require(query.first { $0.name == "s" }?.value)
        #expect(query.first { $0.name == "t" }?.value == MD5.hex(of: "p@ss" + salt))
        // Another server's URLs are left alone.
        #expect(RequestSigning.signed(try #require(URL(string: "http://other.example/rest/stream.view?id=1"))).absoluteString == "http://other.example/rest/stream.view?id=1")
    }

    /// A podcast names the server's own API (`deleteUser`, a `stream` the
    /// item maker never made): fetched as named, with no login added. Only
    /// the songs' own media and pictures carry it.
    @Test func aFeedNamingTheServersAPIIsFetchedWithoutTheLogin() throws {
        let http = try TestHTTPServer()
        let server = try SubsonicServer(location: "subsonic+http://carol:hunter2@127.0.0.1:\(http.port)", login: nil)
        _ = SubsonicClient(server: server, auth: .hex, version: "1.10.2")
        var song = SubsonicSong(id: "42", title: "Answer")
        song.coverArt = "al-42"
        let loaded = SubsonicLibrary(auth: .hex, version: "1.10.2", songs: [song]).loaded(server: server, shownAs: server.identity)
        for path in ["/rest/deleteUser.view", "/rest/stream.view", "/rest/getCoverArt.view"] {
            http.serve(path, bytes: Array("ok".utf8), contentType: "audio/mpeg")
        }
        let base = "http://127.0.0.1:\(http.port)/rest/"
        let rss = """
            <rss version="2.0"><channel><title>Hostile</title>
            <item><title>One</title><enclosure url="\(base)deleteUser.view?username=dave" type="audio/mpeg" length="2"/></item>
            <item><title>Two</title><enclosure url="\(base)stream.view?id=7&amp;format=raw" type="audio/mpeg" length="2"/></item>
            <item><title>Three</title><enclosure url="\(base)getCoverArt.view?id=al-42" type="audio/mpeg" length="2"/></item>
            </channel></rss>
            """
        http.serve("/feed.xml", bytes: Array(rss.utf8), contentType: "application/rss+xml")
        let feed = try FeedDecoder.decode(HTTPGet.fetch(http.url("/feed.xml")).body)
        #expect(feed.items.count == 3)
        for item in feed.items {
            guard case let .remote(url)? = item.source else { Issue.record("no URL for \(item.title)"); continue }
            _ = try HTTPGet.fetch(url)
        }
        let named = http.requests("/rest/deleteUser.view") + http.requests("/rest/stream.view") + http.requests("/rest/getCoverArt.view")
        #expect(named.map(\.query).sorted() == ["id=7&format=raw", "id=al-42", "username=dave"])
        // The songs' own URLs do carry it.
        for url in [loaded.feed.items[0].source, loaded.feed.items[0].thumbnail].compactMap({ $0 }) {
            guard case let .remote(url) = url else { continue }
            _ = try HTTPGet.fetch(url)
        }
        let made = http.requests("/rest/stream.view").map(\.query).filter { $0.hasPrefix("id=42&") } + http.requests("/rest/getCoverArt.view").map(\.query).filter { $0.hasPrefix("id=al-42&size") }
        #expect(made.count == 2)
        #expect(made.allSatisfy { $0.contains("&u=carol&p=enc:") })
    }

    /// A server's song redirected off the server (here another port of the
    /// same address) is not followed, by the cache nor a one-shot fetch: the
    /// other server hears nothing, and the one line says where it went. A
    /// redirect within the server is followed; a URL no server made follows
    /// its redirects anywhere.
    @Test func aServersURLsAreRedirectedOnlyWithinTheServer() async throws {
        let http = try TestHTTPServer(), elsewhere = try TestHTTPServer()
        elsewhere.serve("/song.mp3", bytes: TestHTTPServer.bytes(count: 5000, seed: 9), contentType: "audio/mpeg")
        let server = try SubsonicServer(location: "subsonic+http://erin:pw@127.0.0.1:\(http.port)", login: nil)
        _ = SubsonicClient(server: server, auth: .hex, version: "1.10.2")
        let loaded = SubsonicLibrary(auth: .hex, version: "1.10.2", songs: [SubsonicSong(id: "5", title: "Moved")]).loaded(server: server, shownAs: server.identity)
        guard case let .remote(song)? = loaded.feed.items.first?.source else { Issue.record("no song URL"); return }
        http.redirect("/rest/stream.view", to: elsewhere.url("/song.mp3").absoluteString)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mediaplay-redirect-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try MediaCache(directory: folder)
        let said = "the media server 127.0.0.1 redirected to 127.0.0.1:\(elsewhere.port); a server's files are fetched only from the server itself"
        await #expect(throws: CacheError.network(said)) {
            try await cache.fetch(song)
        }
        #expect { try HTTPGet.fetch(song) } throws: { ($0 as? TransferError)?.message == said }
        #expect(elsewhere.requests("/song.mp3").isEmpty)
        // Within the server: followed, and the song kept.
        let bytes = TestHTTPServer.bytes(count: 7000, seed: 4)
        http.serve("/files/moved.mp3", bytes: bytes, contentType: "audio/mpeg")
        http.redirect("/rest/stream.view", to: http.url("/files/moved.mp3").absoluteString)
        let kept = try await cache.fetch(song)
        #expect(FileManager.default.contents(atPath: kept).map(Array.init) == bytes)
        // Not a server's: followed as before.
        http.redirect("/other.mp3", to: elsewhere.url("/song.mp3").absoluteString)
        _ = try await cache.fetch(http.url("/other.mp3"))
        #expect(elsewhere.requests("/song.mp3").count == 1)
    }

    /// A flood of LOCATIONs: four fetched from one address, 64 in all,
    /// none from another address than the answer's, each once.
    @Test func discoveryTakesFewLocationsFromOneAddress() throws {
        var locations = SSDPDiscovery.Locations()
        var accepted = 0
        for index in 0..<1000 where locations.accept(try #require(URL(string: "http://10.0.0.9:8200/d\(index).xml")), from: "10.0.0.9") { accepted += 1 }
        #expect(accepted == 4)
        #expect(!locations.accept(try #require(URL(string: "http://10.0.0.8:8200/d.xml")), from: "10.0.0.7"))
        #expect(locations.accept(try #require(URL(string: "http://10.0.0.8:8200/d.xml")), from: "10.0.0.8"))
        #expect(!locations.accept(try #require(URL(string: "http://10.0.0.8:8200/d.xml")), from: "10.0.0.8"))
        for host in 1...200 {
            for index in 0..<4 { _ = locations.accept(try #require(URL(string: "http://10.1.0.\(host):8200/\(index).xml")), from: "10.1.0.\(host)") }
        }
        #expect(!locations.accept(try #require(URL(string: "http://10.2.0.1:8200/d.xml")), from: "10.2.0.1"))
    }

    /// A server's title with a line separator and a direction override is
    /// one inert line, as a feed's is (MediaTerminal's rule).
    @Test func aServersTextIsOneInertLine() {
        #expect(ServerText.clean("Evil\u{2028}Line\u{202E}dlrow") == "Evil Line\\u{202E}dlrow")
        #expect(ServerText.clean("Tab\there\u{2029}") == "Tab here")
        #expect(ServerText.clean(String(repeating: "é", count: 600)).count == 500)
    }

    /// Trimming a server's text: ASCII ends are looked at as bytes, anything
    /// else as Unicode says (an ideographic space is a space).
    @Test func aServersTextLosesTheSpacesAtItsEnds() {
        #expect(ServerText.clean(" Spaced  ") == "Spaced")
        #expect(ServerText.clean("Plain") == "Plain")
        #expect(ServerText.clean("\u{3000}Wide\u{3000}") == "Wide")
        #expect(ServerText.clean("Été") == "Été")
        #expect(ServerText.clean("") == "")
    }

    /// A UPnP server's own URLs are told from their bytes when plainly
    /// spelt, never accepting one the full check (Foundation's scheme and
    /// host) refuses; anything unusual is left to the full check.
    @Test func aServersURLsAreToldFromTheirBytesOnlyWhenPlain() throws {
        let server = try UPnPServer(location: "upnp+http://NAS.local:8200/rootDesc.xml")
        let cases: [(String, quick: Bool, allowed: Bool)] = [
            ("http://NAS.local:8200/MediaItems/1.mp3", true, true),
            ("http://nas.LOCAL:8200/x", true, true),
            ("https://nas.local", true, true),
            ("http://nas.local?x=1", true, true),
            ("http://nas.local:/x", true, true),
            ("HTTP://nas.local/x", false, true),
            ("http://user@nas.local/x", false, true),
            ("http://nas.local:8200@evil.example/x", false, false),
            ("http://nas.local.evil.example/x", false, false),
            ("http://nas.locals/x", false, false),
            ("http://nas.lo/x", false, false),
            ("ftp://nas.local/x", false, false),
            ("http://[::1]/x", false, false),
        ]
        for (text, quick, allowed) in cases {
            let url = try #require(URL(string: text), "\(text)")
            let full = (url.scheme?.lowercased() == "http" || url.scheme?.lowercased() == "https") && url.host?.lowercased() == "nas.local"
            #expect(full == allowed, "\(text)")
            #expect(UPnPServer.names(server.host, text) == quick, "\(text)")
            #expect(server.allows(url) == allowed, "\(text)")
        }
    }

    /// A UPnP tree's kept copy reads back as written (the same codec as a
    /// Subsonic library's); a tab in a field becomes a space.
    @Test func theKeptUPnPTreeReadsBack() throws {
        let entries = [
            UPnPFeed.Entry(id: "64$1", title: "Song\tOne", kind: .audio, url: URL(string: "http://10.0.0.2:8200/MediaItems/1.mp3")!, artist: "Band", album: nil, track: 3, duration: 61.5, art: nil),
            UPnPFeed.Entry(id: "64$2", title: "Cover", kind: .image, url: URL(string: "http://10.0.0.2:8200/MediaItems/2.jpg")!, artist: nil, album: "Record", track: nil, duration: nil, art: URL(string: "http://10.0.0.2:8200/a.jpg")),
        ]
        let back = try #require(UPnPFeed.decode(UPnPFeed.encode("My\nServer", entries)))
        #expect(back.name == "My Server")
        #expect(back.entries.map(\.title) == ["Song One", "Cover"])
        #expect(back.entries.map(\.kind) == [.audio, .image])
        #expect(back.entries[0].track == 3 && back.entries[0].duration == 61.5 && back.entries[0].artist == "Band" && back.entries[0].album == nil)
        #expect(back.entries[1].art?.absoluteString == "http://10.0.0.2:8200/a.jpg" && back.entries[1].album == "Record")
        #expect(UPnPFeed.decode(Array("mediaplay-subsonic-library 1\nx\n".utf8)) == nil)
    }

    @Test func didlLiteItemsAndTheirSafety() throws {
        let didl = """
            <DIDL-Lite xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/">
            <container id="7" parentID="0" restricted="1"><dc:title>Albums</dc:title><upnp:class>object.container</upnp:class></container>
            <item id="8" parentID="7"><dc:title>Song &amp; Dance</dc:title><upnp:class>object.item.audioItem.musicTrack</upnp:class><upnp:artist>Band</upnp:artist>\
            <upnp:album>Record</upnp:album><upnp:originalTrackNumber>3</upnp:originalTrackNumber>\
            <res protocolInfo="http-get:*:audio/mpeg:*" duration="0:01:02.500">http://10.0.0.2:8200/MediaItems/8.mp3</res></item>
            <item id="9" parentID="7"><dc:title>Elsewhere</dc:title><upnp:class>object.item.audioItem</upnp:class><res protocolInfo="http-get:*:audio/mpeg:*">http://evil.example/x.mp3</res></item>
            <item id="10" parentID="7"><dc:title>Local</dc:title><upnp:class>object.item.imageItem</upnp:class><res protocolInfo="http-get:*:image/jpeg:*">file:///etc/passwd</res></item>
            </DIDL-Lite>
            """
        let entries = try ContentDirectory.entries(inDIDL: Array(didl.utf8), host: "10.0.0.2")
        #expect(entries.map(\.id) == ["7", "8", "9", "10"])
        #expect(entries[0].isContainer)
        #expect(entries[1].title == "Song & Dance" && entries[1].artist == "Band" && entries[1].album == "Record" && entries[1].track == 3)
        #expect(entries[1].duration == 62.5)
        let server = try UPnPServer(location: "upnp+http://10.0.0.2:8200/rootDesc.xml")
        #expect(UPnPFeed.entry(entries[1], server: server)?.kind == .audio)
        // Another host and a local file are left out.
        #expect(UPnPFeed.entry(entries[2], server: server) == nil)
        #expect(UPnPFeed.entry(entries[3], server: server) == nil)
        // A DTD's entities are never expanded.
        let hostile = Array("""
            <?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>\
            <DIDL-Lite><item id="1"><dc:title>&x;</dc:title><res>http://10.0.0.2/a.mp3</res></item></DIDL-Lite>
            """.utf8)
        // Read as one item whose title is not the file, or refused as a whole.
        do {
            let read = try ContentDirectory.entries(inDIDL: hostile, host: "10.0.0.2")
            #expect(read.count == 1)
            #expect(read.allSatisfy { !$0.title.contains("root:") }, "\(read.map(\.title))")
        } catch {
            #expect(error.message == "the UPnP server 10.0.0.2 sent a Browse result that is not DIDL-Lite")
        }
    }

    /// DIDL-Lite as servers write it, read field by field as the elements
    /// name them: the last title, the first artist or creator, the first
    /// resource that is plain http, CDATA, an undeclared prefix, padding.
    @Test func didlLiteFieldsAreReadAsTheirElementsSay() throws {
        let didl = """
            <?xml version="1.0" encoding="UTF-8"?>
            <DIDL-Lite xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <item id=" 5 " parentID="1"><dc:title>First</dc:title><dc:title>  Second <![CDATA[& Third]]>  </dc:title>
            <dc:creator></dc:creator><dc:creator>Maker</dc:creator><upnp:artist>Later</upnp:artist>
            <upnp:album>Gone</upnp:album><upnp:album> </upnp:album><upnp:class>object.item.videoItem</upnp:class>
            <upnp:albumArtURI>http://10.0.0.2/art.jpg</upnp:albumArtURI>
            <res protocolInfo="rtsp-rtp-udp:*:video/mp4:*" duration="1:00:00">rtsp://10.0.0.2/5</res>
            <res protocolInfo="http-get:*:video/mp4:DLNA.ORG_OP=01" duration="0:00:01.5">http://10.0.0.2/5.mp4?a=1&amp;b=2</res>
            <res protocolInfo="http-get:*:video/webm:*">http://10.0.0.2/5.webm</res></item>
            <item parentID="1"><dc:title>No id: left out</dc:title></item>
            <item id="6"><upnp:class></upnp:class><res protocolInfo="nonsense">http://10.0.0.2/6</res></item>
            <item id="Music/Simon &amp; Garfunkel&#38;2"><dc:title>Real</dc:title><dc:title>&#xA0;&#x3000; </dc:title>\
            <res protocolInfo="http-get:*:audio/mpeg:DLNA.ORG_PN=MP3&amp;X=1" duration="0:00:02">http://10.0.0.2/7.mp3</res></item>
            </DIDL-Lite>
            """
        let entries = try ContentDirectory.entries(inDIDL: Array(didl.utf8), host: "10.0.0.2")
        #expect(entries.map(\.id) == ["5", "6", "Music/Simon & Garfunkel&2"])
        // An attribute's `&` as written; a title of Unicode spaces is none.
        #expect(entries[2].title == "Real" && entries[2].mime == "audio/mpeg" && entries[2].duration == 2)
        let first = try #require(entries.first)
        #expect(first.title == "Second & Third")
        #expect(first.artist == "Maker" && first.album == nil && first.upnpClass == "object.item.videoItem")
        #expect(first.albumArt == "http://10.0.0.2/art.jpg")
        #expect(first.url == "http://10.0.0.2/5.mp4?a=1&b=2" && first.mime == "video/mp4" && first.duration == 1.5)
        // No title: the id; a class without text; a protocolInfo without a MIME type.
        #expect(entries[1].title == "6" && entries[1].upnpClass == "" && entries[1].mime == nil && entries[1].url == "http://10.0.0.2/6")
        // Not DIDL-Lite, not well-formed, or with a document type: one line.
        for bad in ["<html><body/></html>", "<DIDL-Lite><item id=\"1\">", "<!DOCTYPE DIDL-Lite><DIDL-Lite/>", "", "<DIDL-Lite>&nbsp;</DIDL-Lite>"] {
            #expect(throws: CLIError.self) { try ContentDirectory.entries(inDIDL: Array(bad.utf8), host: "10.0.0.2") }
        }
    }

    /// A Browse answer's envelope: its counts and the DIDL-Lite as text; a
    /// fault is the server's refusal, said with its text.
    @Test func browseEnvelopesGiveTheirCountsOrTheFault() throws {
        let server = try UPnPServer(location: "upnp+http://10.0.0.2:8200/rootDesc.xml")
        let directory = ContentDirectory(server: server, controlURL: URL(string: "http://10.0.0.2:8200/ctl")!, serviceType: "urn:schemas-upnp-org:service:ContentDirectory:1")
        let answer = """
            <?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>\
            <u:BrowseResponse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1"><Result>  &lt;DIDL-Lite&gt;&lt;item id="1"&gt;\
            &lt;dc:title&gt;A &amp;amp; B&lt;/dc:title&gt;&lt;/item&gt;&lt;/DIDL-Lite&gt;</Result><NumberReturned>1</NumberReturned>\
            <TotalMatches>1200</TotalMatches><UpdateID>9</UpdateID></u:BrowseResponse></s:Body></s:Envelope>
            """
        let envelope = try directory.envelope(Array(answer.utf8), of: "0")
        #expect(envelope.returned == 1 && envelope.total == 1200)
        #expect(envelope.result.map { String(decoding: $0, as: UTF8.self) } == #"<DIDL-Lite><item id="1"><dc:title>A &amp; B</dc:title></item></DIDL-Lite>"#)
        #expect(try envelope.entries().map(\.title) == ["A & B"])
        let fault = """
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:Client</faultcode>\
            <faultstring>UPnPError</faultstring><detail><UPnPError><errorCode>701</errorCode><errorDescription>No such object</errorDescription>\
            </UPnPError></detail></s:Fault></s:Body></s:Envelope>
            """
        let refusal = #expect(throws: CLIError.self) { try directory.envelope(Array(fault.utf8), of: "64$9") }
        #expect(refusal?.message == "the UPnP server 10.0.0.2 refused Browse of 64$9: No such object (UPnP error 701)")
        #expect(refusal?.exitCode == .unavailable)
        for bad in ["not xml", "<s:Envelope><s:Body>", "<!DOCTYPE x [<!ENTITY e 'x'>]><x>&e;</x>"] {
            let error = #expect(throws: CLIError.self) { try directory.envelope(Array(bad.utf8), of: "0") }
            #expect(error?.message == "the UPnP server 10.0.0.2 did not answer Browse with a SOAP envelope")
        }
    }

    @Test func ssdpAnswersGiveTheirLocation() {
        #expect(SSDPDiscovery.location(in: "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nLocation: http://192.168.1.5:8200/rootDesc.xml\r\nST: x\r\n\r\n") == "http://192.168.1.5:8200/rootDesc.xml")
        #expect(SSDPDiscovery.location(in: "M-SEARCH * HTTP/1.1\r\nLOCATION: http://a/b\r\n\r\n") == nil)
        #expect(SSDPDiscovery.location(in: "HTTP/1.1 200 OK\r\nST: x\r\n\r\n") == nil)
    }

    @Test func versionsCompareByNumber() {
        #expect(SubsonicClient.isOlder("1.10.2", than: "1.13.0"))
        #expect(!SubsonicClient.isOlder("1.16.1", than: "1.13.0"))
        #expect(!SubsonicClient.isOlder("1.13", than: "1.13.0"))
    }
}
