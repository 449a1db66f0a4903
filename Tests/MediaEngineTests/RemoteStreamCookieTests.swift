import Foundation
import MediaEngine
import MediaInterfaces
import Testing
import TestKit

/// A page's cookies go to its own host only (issue 46, item 5), also when
/// libavformat meets a redirect: a manifest or a segment on the page's
/// host that redirects to another host never hands that host the cookies.
/// The two origins are two names of loopback, 127.0.0.1 and localhost: the
/// check compares host names (one port serves both).
@Suite struct RemoteStreamCookieTests {
    @Test func aRedirectToAnotherHostCarriesNoCookie() async throws {
        let server = try TestHTTPServer()
        let onA = "http://127.0.0.1:\(server.port)"
        let onB = "http://localhost:\(server.port)"
        let first = try await Fixtures.make("tone-1s-first.ts", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", "-f", "mpegts"])
        let second = try await Fixtures.make("tone-1s-second.ts", ["-f", "lavfi", "-i", "sine=frequency=660:duration=1", "-c:a", "aac", "-f", "mpegts"])
        let playlist = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:1
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:1.0,
            \(onA)/seg/0.ts
            #EXTINF:1.0,
            \(onA)/seg/1.ts
            #EXT-X-ENDLIST

            """
        // The manifest on A moves to B; of its segments, the first is on A,
        // the second on A moved to B.
        server.redirect("/a/index.m3u8", to: onB + "/b/index.m3u8")
        server.serve("/b/index.m3u8", bytes: Array(playlist.utf8), contentType: "application/vnd.apple.mpegurl")
        server.serve("/seg/0.ts", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: first))), contentType: "video/mp2t")
        server.redirect("/seg/1.ts", to: onB + "/moved/1.ts")
        server.serve("/moved/1.ts", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: second))), contentType: "video/mp2t")

        let folder = try TemporaryDirectory()
        let wav = folder.path + "/out.wav"
        var options = PlaybackOptions()
        options.clock = .untimed
        let stream = RemoteStream(url: URL(string: onA + "/a/index.m3u8")!, headers: ["Cookie": "session=secret", "User-Agent": "PageAgent/1"])
        let player = Player(input: .stream(stream), audioSink: WAVFileSink(path: wav), options: options, makeVideoSink: nil)
        player.play()
        let state = await offPool { player.waitUntilFinished() }
        #expect(state == .ended)

        // A: the cookie is sent on the page's own host.
        #expect(server.requests("/a/index.m3u8").first?.headers["cookie"] == "session=secret")
        #expect(server.requests("/seg/0.ts").contains { $0.headers["cookie"] == "session=secret" })
        // B: never, neither through the manifest's redirect nor the segment's.
        let onOtherHost = server.requests("/b/index.m3u8") + server.requests("/moved/1.ts")
        #expect(onOtherHost.count >= 2)
        #expect(onOtherHost.allSatisfy { $0.headers["cookie"] == nil }, "\(onOtherHost.map(\.headers))")
        #expect(onOtherHost.allSatisfy { $0.headers["host"]?.hasPrefix("localhost") == true })
        #expect((try Recorded.pcm(wav)).isEmpty == false)
    }
}
