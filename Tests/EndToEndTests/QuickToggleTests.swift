import Foundation
import MediaFeed
import MediaControl
import MediaModel
@testable import MediaplayCommandLine
import Testing
import TestKit

/// `toggle N` without the argument parser (QuickToggle): its hand-written
/// JSON against the daemon's own, and the linking that makes it quick.
@Suite struct QuickToggleTests {
    /// Statuses as the daemon writes them (ModelJSON) read back by hand
    /// equal the originals: every field, optional or not, and titles that
    /// need escapes.
    @Test func itReadsEveryStatusTheDaemonWrites() throws {
        let statuses = [
            ItemStatus(item: 1, id: "a", title: "Tone", kind: .audio, state: .playing, position: 12.5, duration: 30),
            ItemStatus(item: 12, id: "x\"y", title: "Quote \" back\\slash \n tab\t é 🎵", kind: .video, state: .buffering, position: 0, duration: nil, progress: 0.25),
            ItemStatus(item: 3, id: "c", title: "", kind: nil, state: .failed, position: 0, error: "cannot decode: \u{1}"),
            ItemStatus(item: 100_000, id: "d", title: "Big", kind: .image, state: .downloading, position: 0, progress: 1),
        ]
        for status in statuses {
            let text = try ModelJSON.encoder().encode(status)
            let parsed = try JSONParser.parse(Array(text)).value
            #expect(QuickToggle.itemStatus(parsed) == status, "\(String(decoding: text, as: UTF8.self))")
        }
        #expect(QuickToggle.itemStatus(try JSONParser.parse(Array(#"{"item":1}"#.utf8)).value) == nil)
    }

    /// The request it writes is the one ToggleCommand sends, as the daemon
    /// decodes it: numbers and ids, paths that need escapes, --no-wait.
    @Test func itsRequestIsToggleCommands() throws {
        for (item, feed, noWait) in [("3", "/home/me/media.json", false), ("sintel", "/a\"b\\c/line\nbreak\t\u{1}é 🎵.json", true), ("x\"y", "http://h/f?x=1&y=\"2\"", false)] {
            var line = QuickToggle.request(item: item, feed: feed, noWait: noWait)
            #expect(line.last == 0x0A)
            line.removeLast()
            var expected = ControlRequest(id: 1, cmd: .toggle, item: ItemSelector(item), wait: noWait ? false : nil, feed: feed)
            let decoded = try ControlRequest.decode(line: line).get()
            // It expires when the client stops waiting: within its timeout from now.
            let expires = try #require(decoded.expires)
            #expect(abs(expires - ClientTimeout.expiry(after: ClientTimeout.standard)) < 2000)
            expected.expires = expires
            #expect(decoded == expected, "\(String(decoding: line, as: UTF8.self))")
        }
    }

    /// The three programs carry the Swift libraries in them (no symbol
    /// lookups for them at start), and none links FFmpeg, SDL or libcurl:
    /// each is loaded on its first call (CMediaLoader), libavfilter when a
    /// speed needs it (docs/PERFORMANCE.md).
    @Test func theProgramsLinkWhatTheirStartNeeds() async throws {
        let folder = (Mediaplay.executable as NSString).deletingLastPathComponent
        let client = try await Mediaplay.start([Mediaplay.executable], executable: "/usr/bin/ldd").wait()
        #expect(client.status == 0)
        #expect(client.stdout.contains("libc.so"))
        #expect(!client.stdout.contains("libswiftCore"), "\(client.stdout)")
        #expect(!client.stdout.contains("libFoundation"))
        let cache = try await Mediaplay.start([folder + "/mediaplay-cache"], executable: "/usr/bin/ldd").wait()
        #expect(cache.status == 0)
        #expect(cache.stdout.contains("libsqlite3"), "\(cache.stdout)")
        #expect(!cache.stdout.contains("libcurl"), "\(cache.stdout)")
        #expect(!cache.stdout.contains("libswiftCore"))
        #expect(!cache.stdout.contains("libav") && !cache.stdout.contains("libSDL2"), "\(cache.stdout)")
        let core = try await Mediaplay.start([folder + "/mediaplay-core"], executable: "/usr/bin/ldd").wait()
        #expect(core.status == 0)
        #expect(core.stdout.contains("libsqlite3"), "\(core.stdout)")
        #expect(!core.stdout.contains("libswiftCore"))
        #expect(!core.stdout.contains("libav") && !core.stdout.contains("libSDL2"), "\(core.stdout)")
        #expect(!core.stdout.contains("libcurl"), "\(core.stdout)")
    }

    /// libcurl is loaded by the first call that needs it: a local list loads
    /// none of it; a list of a remote feed loads it and lists the feed.
    @Test func libcurlLoadsOnItsFirstCall() async throws {
        let core = (Mediaplay.executable as NSString).deletingLastPathComponent + "/mediaplay-core"
        let scratch = try TemporaryDirectory()
        let feed = scratch.path + "/feed.json"
        try Data(#"{"title": "Here", "items": [{"title": "One", "url": "https://example.invalid/one.mp3"}]}"#.utf8).write(to: URL(fileURLWithPath: feed))
        let local = try await Mediaplay.start(["list", "--json", "--feed", feed, "--cache-dir", scratch.path + "/cache"], environment: ["LD_DEBUG": "files"], executable: core).wait()
        #expect(local.status == 0, "\(local.stderr.suffix(2000))")
        #expect(!local.stderr.contains("libcurl"), "\(local.stderr.suffix(2000))")
        let web = try TestHTTPServer()
        web.serve("/feed.json", bytes: Array(#"{"title": "There", "items": [{"title": "Two", "url": "https://example.invalid/two.mp3"}]}"#.utf8), contentType: "application/json")
        let remote = try await Mediaplay.start(["list", "--json", "--feed", "http://127.0.0.1:\(web.port)/feed.json", "--cache-dir", scratch.path + "/cache"], environment: ["LD_DEBUG": "files"], executable: core).wait()
        #expect(remote.status == 0, "\(remote.stderr.suffix(2000))")
        #expect(remote.stderr.contains("file=libcurl.so.4"), "\(remote.stderr.suffix(2000))")
        #expect(remote.stdout.contains("\"title\" : \"Two\""), "\(remote.stdout)")
    }

    /// FFmpeg is loaded by the first call that needs it: mediaplay-core
    /// listing a feed with no file at hand loads none of it (nor SDL); the
    /// same list once a file is in the folder loads it and probes the file.
    /// (The dynamic linker's own account, LD_DEBUG=files, says what loaded.)
    @Test func ffmpegLoadsOnItsFirstCall() async throws {
        let core = (Mediaplay.executable as NSString).deletingLastPathComponent + "/mediaplay-core"
        let scratch = try TemporaryDirectory()
        let music = scratch.path + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        let arguments = ["list", "--json", "--feed", music, "--cache-dir", scratch.path + "/cache"]
        let empty = try await Mediaplay.start(arguments, environment: ["LD_DEBUG": "files"], executable: core).wait()
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(!empty.stderr.contains("libavformat") && !empty.stderr.contains("libSDL2"), "\(empty.stderr)")
        let tone = try await Fixtures.make("loader-tone.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"])
        try FileManager.default.copyItem(atPath: tone, toPath: music + "/tone.wav")
        let probed = try await Mediaplay.start(arguments, environment: ["LD_DEBUG": "files"], executable: core).wait()
        #expect(probed.status == 0, "\(probed.stderr)")
        #expect(probed.stderr.contains("file=libavformat"), "\(probed.stderr.suffix(2000))")
        #expect(!probed.stderr.contains("libSDL2"))
        #expect(probed.stdout.contains("\"codec\" : \"pcm_s16le\""), "\(probed.stdout)")
    }
}
