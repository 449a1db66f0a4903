import Foundation
import Testing
import InProcessRunner
import TestKit

/// What a feed, a file or a neighbour sends cannot make mediaplay open what
/// it should not: FFmpeg opens nothing by itself.
@Suite struct HostileInputTests {
    /// An HLS playlist served as a remote item plays its parts over http
    /// (issue 46); one listing a local file is refused with one line, and
    /// nothing of the file is read.
    @Test(arguments: [false, true])
    func aRemotePlaylistCannotOpenLocalFiles(_ localSegment: Bool) async throws {
        let toneFixture = Fixtures.audioCodecs.first { $0.name == "tone.mp3" }!
        let tone = try await Fixtures.make(toneFixture.name, toneFixture.arguments)
        let server = try TestHTTPServer()
        server.serve("/other.mp3", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: tone))))
        let segment = localSegment ? "file://\(tone)" : server.url("/other.mp3").absoluteString
        let playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXTINF:2.0,\n\(segment)\n#EXT-X-ENDLIST\n"
        server.serve("/list.m3u8", bytes: Array(playlist.utf8), contentType: "application/vnd.apple.mpegurl")
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.json", #"[{"type": 1, "title": "Playlist", "url": "\#(server.url("/list.m3u8").absoluteString)"}]"#)
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.runInProcess(["play", "1", "--feed", feed, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", out, "--untimed"])
        let written = (try? Data(contentsOf: URL(fileURLWithPath: out)))?.count ?? 0
        if localSegment {
            #expect(result.status == 65, "\(result.stderr)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("mediaplay:") }
            #expect(errors.count == 1 && errors[0].contains("not an http or https URL"), "\(result.stderr)")
            #expect(written <= 44, "no samples of the local file were played: \(written) bytes")
        } else {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(server.getCount("/other.mp3") >= 1 && written > 44, "the http part plays")
        }
    }

    /// The same for a playlist file on disk: a local item plays only itself.
    @Test func aLocalPlaylistIsRefusedToo() async throws {
        let toneFixture = Fixtures.audioCodecs.first { $0.name == "tone.mp3" }!
        let tone = try await Fixtures.make(toneFixture.name, toneFixture.arguments)
        let folder = try TemporaryDirectory()
        let playlist = try folder.write("list.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXTINF:2.0,\n\(tone)\n#EXT-X-ENDLIST\n")
        let result = try await Mediaplay.runInProcess(["play", playlist, "--no-video", "--audio-out", folder.path + "/out.wav", "--untimed"])
        #expect(result.status == 65 && result.stderr.contains("playlist"), "\(result.stderr)")
    }

    static let hostileTitle = #"\u001b]0;PWNED\u0007\u001b[2J\u202eevil"#

    /// Titles print escaped, never as terminal commands: play's lines,
    /// toggle and status through the background player.
    @Test func feedTextReachesTheTerminalEscaped() async throws {
        let toneFixture = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let tone = try await Fixtures.make(toneFixture.name, toneFixture.arguments)
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", #"[{"type": 1, "title": "\#(Self.hostileTitle)", "url": "file://\#(tone)"}]"#)
        let play = try await Mediaplay.runInProcess(["play", "1", "--no-video", "--audio-out", home.folder.path + "/out.wav", "--untimed"], environment: home.environment)
        #expect(play.status == 0, "\(play.stderr)")
        #expect(!play.stderr.contains("\u{1B}") && !play.stderr.contains("\u{7}") && !play.stderr.contains("\u{202E}"), "\(play.stderr)")
        // Its state lines name it escaped (an untimed tone may end before its
        // "playing" is heard: the line may be "ended" alone).
        #expect(play.stderr.contains(#" "\e]0;PWNED\u{7}\e[2J\u{202E}evil""#), "\(play.stderr)")
        let toggle = try await home.runInProcess("toggle", "1")
        let status = try await home.runInProcess("status")
        for output in [toggle.stdout + toggle.stderr, status.stdout + status.stderr] {
            #expect(!output.contains("\u{1B}") && !output.contains("\u{7}"), "\(output)")
            #expect(output.contains(#"\e]0;PWNED"#), "\(output)")
        }
        _ = try await home.runInProcess("quit")
    }

    /// A syntax error quotes a member name: escaped, on one line, bounded
    /// (a 2 MB name used to be echoed whole).
    @Test func syntaxErrorsEchoNamesEscapedAndBounded() async throws {
        let folder = try TemporaryDirectory()
        let longName = String(repeating: "x", count: 2_000_000)
        let feed = try folder.write("bad.json", #"{"\u001b[2Jname\n\#(longName)" 1}"#)
        let result = try await Mediaplay.run(["list", "--feed", feed])
        #expect(result.status == 65)
        #expect(result.stderr.split(separator: "\n").count == 1, "one line")
        #expect(result.stderr.count < 1200, "bounded: \(result.stderr.count) characters")
        #expect(!result.stderr.contains("\u{1B}") && result.stderr.contains(#"\e[2Jname\nxxx"#), "\(result.stderr.prefix(200))")
    }

    /// A FIFO (or device) as a file to play, a feed item or the feed itself
    /// is refused at once: reading it blocked forever, deaf to SIGINT.
    @Test func specialFilesAreRefusedNotWaitedOn() async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.path + "/song.mp3"
        #expect(mkfifo(fifo, 0o600) == 0)
        let feed = try folder.write("feed.json", #"[{"type": 1, "title": "Pipe", "url": "\#(fifo)"}]"#)
        for arguments in [["play", fifo], ["play", "1", "--feed", feed], ["list", "--feed", fifo]] {
            let running = try Mediaplay.start(arguments, environment: ["SDL_AUDIODRIVER": "dummy"])
            // A watchdog: a hang is killed (and fails below) after 20 s.
            if try await !running.exits(within: 20) { running.kill(SIGKILL) }
            let result = try await running.wait()
            #expect(!result.killedBySignal && result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("FIFO"), "\(arguments): \(result.stderr)")
        }
    }

    /// Errors that used to mislead say what is wrong.
    @Test func errorsSayWhatIsWrong() async throws {
        let folder = try TemporaryDirectory()
        let text = try folder.write("notes.mp3", String(repeating: "This is text, not sound.\n", count: 200))
        let notMedia = try await Mediaplay.runInProcess(["play", text])
        #expect(notMedia.status == 65 && notMedia.stderr == "mediaplay: item 1 \"notes.mp3\": it is not a media file FFmpeg can read (no known audio, video or picture format)\n", "\(notMedia.stderr)")
        let feed = try folder.write("feed.json", "[]")
        let missing = try await Mediaplay.runInProcess(["play", "nope.mp3", "--feed", feed])
        #expect(missing.status == 66 && missing.stderr.hasPrefix("mediaplay: file not found: ") && missing.stderr.contains("nope.mp3"), "\(missing.stderr)")
    }

    /// No writable state folder: the message names the path that failed
    /// (it read "cannot start … No such file or directory").
    @Test func anUnwritableStateFolderIsNamed() async throws {
        let toneFixture = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let tone = try await Fixtures.make(toneFixture.name, toneFixture.arguments)
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", #"[{"type": 1, "title": "Tone", "url": "file://\#(tone)"}]"#)
        var environment = home.environment
        environment["XDG_STATE_HOME"] = "/proc/mediaplay-no-such-folder"  // not even root can write there
        let result = try await Mediaplay.runInProcess(["toggle", "1"], environment: environment)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("cannot use the state folder /proc/mediaplay-no-such-folder/mediaplay"), "\(result.stderr)")
    }
}
