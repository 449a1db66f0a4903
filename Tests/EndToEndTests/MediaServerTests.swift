import Foundation
import Testing
import TestKit

/// The tags of the songs the servers hold: made by ffmpeg, read back by the servers.
private struct Song {
    var file: String
    var title: String
    var artist: String
    var album: String
    var track: Int
    var seconds: Double
    var frequency: Int

    static let all = [
        Song(file: "b/second.mp3", title: "Bee Two", artist: "Zebra Band", album: "Stripes", track: 2, seconds: 2, frequency: 550),
        Song(file: "a/first.mp3", title: "Aye One", artist: "Aardvark", album: "Burrow", track: 1, seconds: 3, frequency: 440),
        Song(file: "b/first.mp3", title: "Bee One", artist: "Zebra Band", album: "Stripes", track: 1, seconds: 1, frequency: 660),
    ]

    /// Writes the songs under `folder` (and, with `picture`, a JPEG).
    static func make(in folder: String, picture: Bool = false) async throws {
        for song in all {
            let path = folder + "/" + song.file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let result = try await Fixtures.run("/usr/bin/ffmpeg", [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(song.frequency):duration=\(song.seconds)", "-ac", "2", "-ar", "44100",
                "-metadata", "title=\(song.title)", "-metadata", "artist=\(song.artist)", "-metadata", "album=\(song.album)", "-metadata", "track=\(song.track)",
                "-c:a", "libmp3lame", "-b:a", "128k", path,
            ])
            guard result.status == 0 else { throw SetUpFailure(message: String(decoding: result.stderr, as: UTF8.self)) }
        }
        if picture {
            let result = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:duration=1", "-frames:v", "1", folder + "/picture.jpg"])
            guard result.status == 0 else { throw SetUpFailure(message: String(decoding: result.stderr, as: UTF8.self)) }
        }
    }
}

private struct SetUpFailure: Error {
    var message: String
}

/// The items of `list --json`.
private func items(_ json: String) throws -> [[String: Any]] {
    let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    return object?["items"] as? [[String: Any]] ?? []
}

/// A Subsonic server as a feed, against Debian's Supysonic 0.7.2 (API
/// 1.10.2: the password form of the login) on loopback, one server for the
/// suite.
@Suite(.serialized) struct SubsonicFeedTests {
    static let shared = Task { try await SupysonicServer.start { try await Song.make(in: $0) } }

    final class Home: UserHome, @unchecked Sendable {
        override var environment: [String: String] {
            super.environment.merging(["XDG_CONFIG_HOME": folder.path + "/config", "HOME": folder.path]) { $1 }
        }

        func config(_ text: String) throws {
            try FileManager.default.createDirectory(atPath: folder.path + "/config/mediaplay", withIntermediateDirectories: true)
            _ = try folder.write("config/mediaplay/config.toml", text)
        }
    }

    @Test func listShowsTheLibraryByArtistAndAlbumWithoutThePassword() async throws {
        let server = try await Self.shared.value
        let home = try await Home()
        home.feed = server.feed
        let result = try await home.run("list", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let listed = try items(result.stdout)
        #expect(listed.map { $0["title"] as? String } == ["Aye One", "Bee One", "Bee Two"])
        #expect(listed.map { ($0["media"] as? [String: Any])?["artist"] as? String } == ["Aardvark", "Zebra Band", "Zebra Band"])
        #expect(listed.map { ($0["media"] as? [String: Any])?["album"] as? String } == ["Burrow", "Stripes", "Stripes"])
        #expect(listed.map { $0["duration"] as? Double } == [3, 1, 2])
        #expect(listed.allSatisfy { $0["kind"] as? String == "audio" })
        // No password in the listing, the cache's index or its files' names.
        #expect(!result.stdout.contains(SupysonicServer.password) && !result.stderr.contains(SupysonicServer.password))
        let index = try Data(contentsOf: URL(fileURLWithPath: home.folder.path + "/cache/mediaplay/index.sqlite"))
        #expect(index.range(of: Data(SupysonicServer.password.utf8)) == nil)
        #expect(index.range(of: Data("enc:".utf8)) == nil)
        // The table and --grep, as for a folder.
        let grep = try await home.run("list", "--grep", "zebra")
        #expect(grep.status == 0)
        #expect(grep.stdout.contains("Bee One") && grep.stdout.contains("Bee Two") && !grep.stdout.contains("Aye One"), "\(grep.stdout)")
        // Kept: the next list asks the server nothing.
        let searches = server.requests("search3").count
        #expect(try await home.run("list", "--json").stdout == result.stdout)
        #expect(server.requests("search3").count == searches)
    }

    @Test func playEqualsFFmpegStreamsOnceAndTheServerRecordsIt() async throws {
        let server = try await Self.shared.value
        let home = try await Home()
        home.feed = server.feed
        let listed = try items(try await home.run("list", "--json").stdout)
        let id = try #require(listed[1]["id"] as? String)
        let out = home.folder.path + "/out.wav"
        let first = try await home.run("play", "2", "--audio-out", out, "--untimed")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr == "playing \"Bee One\"\nended \"Bee One\"\n")
        let wav = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(Array(wav.dropFirst(44)) == (try await Fixtures.referencePCM(server.music + "/b/first.mp3")))
        // One download (the cache may read ahead with a ranged request of its own while it plays).
        let streamed = server.requests("stream").filter { $0.contains(id) }
        #expect(!streamed.isEmpty)
        // The second play comes from the cache: no new stream request.
        let second = try await home.run("play", "2", "--audio-out", out, "--untimed")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(server.requests("stream").filter { $0.contains(id) } == streamed)
        // The play reported: now playing at its start, a scrobble at its end.
        let scrobbles = server.requests("scrobble").filter { $0.contains(id) }
        #expect(scrobbles.filter { $0.contains("submission=false") }.count == 2)
        #expect(scrobbles.filter { $0.contains("submission=true") }.count == 2)
        let nowPlaying = try await server.call("getNowPlaying")
        #expect(nowPlaying.contains("\"title\":\"Bee One\"") && nowPlaying.contains("\"username\":\"alice\""), "\(nowPlaying)")
        // The server's log holds the password form on the wire; mediaplay's own output never does.
        #expect(!first.stderr.contains("enc:") && !second.stderr.contains("enc:"))
    }

    /// A named feed's password from a command; one that leaves a child
    /// holding its output too: its first line is the password, and the
    /// child costs the list nothing.
    @Test(arguments: ["", "sleep 60 & "])
    func aNamedFeedTakesItsPasswordFromACommand(_ before: String) async throws {
        let server = try await Self.shared.value
        let home = try await Home()
        try home.config("""
            [feeds.music]
            url = "subsonic+http://127.0.0.1:\(server.port)"
            user = "alice"
            password-command = "\(before)echo \(SupysonicServer.password)"
            """)
        home.feed = "music"
        let result = try await home.run("list", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try items(result.stdout).count == 3)
    }

    @Test func markStarredStarsTheSongOnTheServer() async throws {
        let server = try await Self.shared.value
        let home = try await Home()
        home.feed = server.feed
        let result = try await home.run("mark", "1", "starred")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1 Aye One: starred\n")
        #expect(try await server.call("getStarred2").contains("\"title\":\"Aye One\""))
        #expect(try await home.run("mark", "1", "unstarred").status == 0)
        #expect(!(try await server.call("getStarred2").contains("\"title\":\"Aye One\"")))
    }

    @Test func aWrongPasswordIsOneLineAndExit77() async throws {
        let server = try await Self.shared.value
        let home = try await Home()
        home.feed = "subsonic+http://alice:wrong@127.0.0.1:\(server.port)"
        let result = try await home.run("list")
        #expect(result.status == 77)
        #expect(result.stderr == "mediaplay: the server 127.0.0.1 refused user alice: wrong password\n")
    }

    /// The library kept with the right password, the password then wrong:
    /// the server's error document is never kept as the song, the play is
    /// the one line and exit 77 (so is a toggle through the background
    /// player, whose status says it), and the right password plays it after.
    @Test func aPasswordChangedSinceTheListIsExit77AndNothingIsKept() async throws {
        let server = try await Self.shared.value
        let home = try await Home()
        home.feed = server.feed
        #expect(try await home.run("list").status == 0)
        home.feed = "subsonic+http://alice:wrong@127.0.0.1:\(server.port)"
        let out = home.folder.path + "/out.wav"
        let refused = try await home.run("play", "1", "--audio-out", out, "--untimed")
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr == "mediaplay: the server 127.0.0.1 refused user alice: wrong password\n")
        let toggled = try await home.run("toggle", "1")
        #expect(toggled.status == 77, "\(toggled.stderr)")
        #expect(toggled.stderr == "mediaplay: item 1 \"Aye One\": the server 127.0.0.1 refused user alice: wrong password\n")
        let status = try await home.run("status")
        #expect(status.stdout.contains("refused user alice: wrong password"), "\(status.stdout) \(status.stderr)")
        #expect(try await home.run("quit").status == 0)
        home.feed = server.feed
        let played = try await home.run("play", "1", "--audio-out", out, "--untimed")
        #expect(played.status == 0, "\(played.stderr)")
        let wav = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(Array(wav.dropFirst(44)) == (try await Fixtures.referencePCM(server.music + "/a/first.mp3")))
    }

    @Test func aDeadServerIsOneLineAndExit69() async throws {
        let home = try await Home()
        // Port 1: nothing listens there.
        home.feed = "subsonic+http://alice:secret@127.0.0.1:1"
        let result = try await home.run("list")
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("mediaplay: cannot reach the Subsonic server 127.0.0.1: "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && !result.stderr.contains("secret"))
    }

    /// One bound for the whole load, not each call: two pings that each
    /// take 1.5 s (a server refusing tokens) are past a 2 s timeout.
    @Test func theTimeoutBoundsTheWholeLoad() async throws {
        let web = try TestHTTPServer()
        let answer = #"{"subsonic-response": {"status": "failed", "version": "1.13.0", "error": {"code": 41, "message": "no tokens"}}}"#
        web.serve("/rest/ping.view", bytes: Array((answer + String(repeating: " ", count: 300 - answer.utf8.count)).utf8), contentType: "application/json")
        web.throttle("/rest/ping.view", bytesPerSecond: 200)
        let home = try await Home()
        try home.config("[network]\ntimeout = 2\n")
        home.feed = "subsonic+http://alice:pw@127.0.0.1:\(web.port)"
        let result = try await home.run("list")
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("127.0.0.1"), "\(result.stderr)")
    }

    @Test func garbageAndSilenceAreOneLineEach() async throws {
        let web = try TestHTTPServer()
        web.serve("/rest/ping.view", bytes: Array("<html>not an API</html>".utf8), contentType: "text/html")
        let home = try await Home()
        home.feed = "subsonic+http://alice:secret@127.0.0.1:\(web.port)"
        let garbage = try await home.run("list")
        #expect(garbage.status == 69)
        #expect(garbage.stderr.hasPrefix("mediaplay: 127.0.0.1 did not answer as a Subsonic server"), "\(garbage.stderr)")
        #expect(garbage.stderr.split(separator: "\n").count == 1)
        // A server that answers its headers and then nothing: given up at [network] timeout.
        try home.config("[network]\ntimeout = 2\n")
        web.serve("/rest/ping.view", bytes: Array(#"{"subsonic-response":{"status":"ok","version":"1.16.1"}}"#.utf8))
        web.inject("/rest/ping.view", [.hangAfter(0)])
        let silent = try await home.run("list")
        #expect(silent.status == 69)
        #expect(silent.stderr.hasPrefix("mediaplay: cannot reach the Subsonic server 127.0.0.1: no whole answer within 2 s"), "\(silent.stderr)")
        #expect(silent.stderr.split(separator: "\n").count == 1)
    }
}

/// A DLNA/UPnP server as a feed, against Debian's minidlna in a network
/// namespace the suite makes (its loopback carries multicast there, so
/// SSDP works without touching the machine's network).
@Suite(.serialized) struct DLNAFeedTests {
    static let shared = Task { try await MiniDLNAServer.start { try await Song.make(in: $0, picture: true) } }

    /// A server stopped takes its network namespace with it (its guard
    /// deletes it once minidlna has ended).
    @Test func theNamespaceGoesWithTheServer() async throws {
        let dlna = try await MiniDLNAServer.start { _ in }
        #expect(FileManager.default.fileExists(atPath: "/run/netns/" + dlna.namespace))
        await dlna.server.stop()
        #expect(!FileManager.default.fileExists(atPath: "/run/netns/" + dlna.namespace))
    }

    /// A container of 2,300 files is read in five pages of 500 (the last
    /// short), the two next ones asked for while one is read (PageAhead):
    /// every file once, in the server's order.
    @Test func aLargeContainerIsReadWholeAcrossPages() async throws {
        let tone = try await Fixtures.make("dlna-pages.mp3", ["-f", "lavfi", "-i", "sine=frequency=440:duration=0.2", "-c:a", "libmp3lame", "-b:a", "32k"])
        let dlna = try await MiniDLNAServer.start { media in
            try FileManager.default.createDirectory(atPath: media + "/flat", withIntermediateDirectories: true)
            for index in 0..<2300 { try FileManager.default.linkItem(atPath: tone, toPath: media + String(format: "/flat/%04d.mp3", index)) }
        }
        let home = try await UserHome()
        // 64$0: the first folder of minidlna's folder view.
        let result = try await dlna.mediaplay(["list", "--json", "--feed", dlna.feed + "#64$0"], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let listed = try items(result.stdout)
        #expect(listed.map { $0["title"] as? String } == (0..<2300).map { String(format: "%04d", $0) })
        // Made as the pages came (the feed's order, read from the server)
        // or once whole (reversed, from the kept copy): the same items.
        let reversed = try await dlna.mediaplay(["list", "--json", "--reverse", "--feed", dlna.feed + "#64$0"], environment: home.environment)
        #expect(reversed.status == 0, "\(reversed.stderr)")
        #expect((listed as NSArray).isEqual(to: Array(try items(reversed.stdout).reversed())))
    }

    @Test func listShowsTheAudioAndPicturesAndPlayEqualsFFmpeg() async throws {
        let server = try await Self.shared.value
        let home = try await UserHome()
        let result = try await server.mediaplay(["list", "--json", "--feed", server.feed], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let listed = try items(result.stdout)
        let audio = listed.filter { $0["kind"] as? String == "audio" }
        #expect(Set(audio.compactMap { $0["title"] as? String }) == ["Aye One", "Bee One", "Bee Two"])
        #expect(listed.filter { $0["kind"] as? String == "image" }.count == 1)
        #expect(listed.count == 4, "each file once, however many containers show it")
        #expect(listed.allSatisfy { ($0["url"] as? String)?.hasPrefix("http://127.0.0.1:\(MiniDLNAServer.port)/") == true })
        let first = try #require(listed.first { $0["kind"] as? String == "audio" })
        let title = try #require(first["title"] as? String)
        let original = try #require(Song.all.first { $0.title == title })
        let out = home.folder.path + "/out.wav"
        let play = try await server.mediaplay(["play", String(try #require(first["position"] as? Int)), "--audio-out", out, "--untimed", "--feed", server.feed], environment: home.environment)
        #expect(play.status == 0, "\(play.stderr)")
        let wav = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(Array(wav.dropFirst(44)) == (try await Fixtures.referencePCM(server.media + "/" + original.file)))
    }

    @Test func discoverFindsTheServer() async throws {
        let server = try await Self.shared.value
        let home = try await UserHome()
        let result = try await server.mediaplay(["feeds", "discover", "--json", "--timeout", "3"], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""name":"mediaplay test server""#), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains(#""feed":"\#(server.feed)""#), "\(result.stdout)")
    }

    @Test func aDeadServerIsOneLineAndExit69() async throws {
        let home = try await UserHome()
        home.feed = "upnp+http://127.0.0.1:1/rootDesc.xml"
        let result = try await home.run("list")
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("mediaplay: cannot reach the UPnP server 127.0.0.1: "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// A ContentDirectory that answers every Browse with the same page, with
    /// no TotalMatches or claiming ten million: the list is what it has,
    /// after two requests (the second adds nothing new), never a hang.
    @Test(arguments: ["", "<TotalMatches>10000000</TotalMatches>"])
    func aServerRepeatingItsPageGivesAFiniteList(_ total: String) async throws {
        let web = try TestHTTPServer()
        web.serve("/rootDesc.xml", bytes: Array("""
            <?xml version="1.0"?><root xmlns="urn:schemas-upnp-org:device-1-0"><device><friendlyName>Loop</friendlyName>
            <serviceList><service><serviceType>urn:schemas-upnp-org:service:ContentDirectory:1</serviceType>
            <controlURL>/ctl</controlURL></service></serviceList></device></root>
            """.utf8), contentType: "text/xml")
        let didl = """
            <DIDL-Lite xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/" xmlns:dc="http://purl.org/dc/elements/1.1/" \
            xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/"><item id="1" parentID="0"><dc:title>Again</dc:title>\
            <upnp:class>object.item.audioItem.musicTrack</upnp:class>\
            <res protocolInfo="http-get:*:audio/mpeg:*">http://127.0.0.1:\(web.port)/again.mp3</res></item></DIDL-Lite>
            """
        let escaped = didl.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        web.serve("/ctl", bytes: Array("""
            <?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>\
            <u:BrowseResponse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1"><Result>\(escaped)</Result>\
            <NumberReturned>1</NumberReturned>\(total)<UpdateID>1</UpdateID></u:BrowseResponse></s:Body></s:Envelope>
            """.utf8), contentType: "text/xml")
        let home = try await UserHome()
        home.feed = "upnp+http://127.0.0.1:\(web.port)/rootDesc.xml"
        let result = try await home.run("list", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try items(result.stdout).map { $0["title"] as? String } == ["Again"])
        // With a total stated, each next page is asked for while one is
        // read (PageAhead): one request more at most, called off once not
        // needed (whether it reached the server first is the machine's timing).
        let requests = web.requests("/ctl").count
        #expect(total.isEmpty ? requests == 2 : (2...3).contains(requests), "\(requests) requests")
    }

    @Test func garbageIsOneLine() async throws {
        let web = try TestHTTPServer()
        web.serve("/rootDesc.xml", bytes: TestHTTPServer.bytes(count: 5000, seed: 3))
        let home = try await UserHome()
        home.feed = "upnp+http://127.0.0.1:\(web.port)/rootDesc.xml"
        let result = try await home.run("list")
        #expect(result.status == 69)
        #expect(result.stderr == "mediaplay: 127.0.0.1 did not answer with a UPnP device description; check the URL\n")
    }
}
