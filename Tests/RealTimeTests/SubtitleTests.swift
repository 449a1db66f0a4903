import Foundation
import Testing
import TestKit

/// Subtitles and tracks from the command line, scripts and the background
/// player: the text at its times in virtual time, a file beside the video
/// found by its name, `--sid no`, the tracks in `status`, and audio tracks
/// chosen by language or switched while playing, sample for sample.
@Suite struct SubtitleTests {
    /// The plain video with `movie.srt` beside it, in a folder of its own.
    static func withSidecar(_ folder: TemporaryDirectory) async throws -> String {
        let video = folder.path + "/movie.mp4"
        try FileManager.default.copyItem(atPath: try await SubtitleFixtures.plainVideo(), toPath: video)
        try FileManager.default.copyItem(atPath: try SubtitleFixtures.file("srt"), toPath: folder.path + "/movie.srt")
        return video
    }

    @Test func aScriptSeesEachCueAtItsTimes() async throws {
        let folder = try TemporaryDirectory()
        let video = try await Self.withSidecar(folder)
        let script = try folder.write("cues.txt", """
            play 1
            wait 0.45s
            expect subtitle none
            wait 0.1s
            expect subtitle "Hello world"
            wait 0.9s
            expect subtitle "Hello world"
            wait 0.1s
            expect subtitle none
            wait 0.5s
            expect subtitle "Two lines\\nsecond line"
            subtitle off
            expect subtitle none
            subtitle on
            expect subtitle "Two lines\\nsecond line"
            sub-delay +1
            expect subtitle "Hello world"
            sub-delay 0
            wait 0.6s
            expect subtitle none

            """)
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.run(["script", script, "--feed", video, "--audio-out", out])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // --sid no: none shows, and a mistaken expectation names the line and both texts.
        let none = try folder.write("none.txt", "play 1\nwait 1s\nexpect subtitle \"Hello world\"\n")
        let hidden = try await Mediaplay.run(["script", none, "--feed", video, "--audio-out", out, "--sid", "no"])
        #expect(hidden.status == 1 && hidden.stderr.contains("none.txt:3: expected subtitle \"Hello world\" at 1.000 s, it is none"), "\(hidden.stderr)")
    }

    @Test func aVideosOwnTrackIsChosenByLanguage() async throws {
        let video = try await SubtitleFixtures.video(with: "mov_text")
        let folder = try TemporaryDirectory()
        // A second track, German, from a file given on the command line.
        let german = try folder.write("film.de.srt", "1\n00:00:00,500 --> 00:00:01,500\nHallo Welt\n")
        let script = try folder.write("de.txt", "play 1\nwait 1s\nexpect subtitle \"Hallo Welt\"\nsubtitle 1\nexpect subtitle \"Hello world\"\nsubtitle next\nexpect subtitle \"Hallo Welt\"\nsubtitle next\nexpect subtitle none\nsubtitle 3\n")
        let result = try await Mediaplay.run(["script", script, "--feed", video, "--audio-out", folder.path + "/out.wav", "--sub-file", german, "--slang", "de"])
        #expect(result.status == 1 && result.stderr.contains("de.txt:10: no subtitle track 3: the item has 2 (1–2)"), "\(result.stdout)\(result.stderr)")
        let missing = try await Mediaplay.run(["play", video, "--sub-file", folder.path + "/nothing.srt"])
        #expect(missing.status == 64 && missing.stderr.contains("--sub-file \(folder.path)/nothing.srt: no such file"), "\(missing.stderr)")
    }

    /// A remote feed's subtitle links (ours, and JSON Feed's attachments)
    /// are fetched into the cache once and shown; a remote feed naming a
    /// local file for them is refused, in one line naming the item.
    @Test func aRemoteFeedsSubtitlesAreFetchedOnce() async throws {
        let server = try TestHTTPServer()
        server.serve("/movie.mp4", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: try await SubtitleFixtures.plainVideo()))))
        server.serve("/movie.de.srt", bytes: Array("1\n00:00:00,500 --> 00:00:01,500\nHallo Welt\n".utf8))
        server.serve("/movie.en.vtt", bytes: Array(SubtitleFixtures.vtt.utf8))
        server.serve("/ours.json", bytes: Array(#"[{"type": "video", "title": "Film", "url": "\#(server.url("/movie.mp4").absoluteString)", "subtitles": [{"url": "\#(server.url("/movie.de.srt").absoluteString)", "language": "de"}, "\#(server.url("/movie.en.vtt").absoluteString)"]}]"#.utf8))
        server.serve("/feed.json", bytes: Array(#"{"version": "https://jsonfeed.org/version/1.1", "title": "F", "items": [{"id": "film", "title": "Film", "attachments": [{"url": "\#(server.url("/movie.mp4").absoluteString)", "mime_type": "video/mp4"}, {"url": "\#(server.url("/movie.en.vtt").absoluteString)", "mime_type": "text/vtt"}]}]}"#.utf8))
        server.serve("/sneaky.json", bytes: Array(#"[{"type": "video", "title": "Film", "url": "\#(server.url("/movie.mp4").absoluteString)", "subtitles": "file:///etc/passwd"}]"#.utf8))
        let folder = try TemporaryDirectory()
        let cache = folder.path + "/cache"
        let ours = try folder.write("ours.txt", "play 1\nwait 1s\nexpect subtitle \"Hello world\"\nsubtitle 1\nexpect subtitle \"Hallo Welt\"\n")
        for _ in 0..<2 {
            let result = try await Mediaplay.run(["script", ours, "--slang", "en", "--feed", server.url("/ours.json").absoluteString, "--cache-dir", cache, "--audio-out", folder.path + "/out.wav"])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        #expect(server.requests("/movie.de.srt").count == 1 && server.requests("/movie.en.vtt").count == 1, "fetched once, then cached")
        let jsonFeed = try folder.write("feed.txt", "play 1\nwait 1.9s\nexpect subtitle \"Two lines\\nsecond line\"\n")
        let fromAttachments = try await Mediaplay.run(["script", jsonFeed, "--feed", server.url("/feed.json").absoluteString, "--cache-dir", cache, "--audio-out", folder.path + "/out.wav"])
        #expect(fromAttachments.status == 0, "\(fromAttachments.stdout)\(fromAttachments.stderr)")
        let sneaky = try await Mediaplay.run(["play", "1", "--feed", server.url("/sneaky.json").absoluteString, "--cache-dir", cache, "--audio-out", folder.path + "/out.wav"])
        #expect(sneaky.status != 0 && sneaky.stderr.contains("subtitles:") && !sneaky.stderr.contains("root:"), "\(sneaky.stderr)")
    }

    /// A film with an English and a German sound track (PCM, so every sample is comparable).
    static func twoLanguages() async throws -> String {
        try await Fixtures.make("two-languages.mov", [
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3",
            "-f", "lavfi", "-i", "aevalsrc=sin(330*2*PI*t)*0.4|sin(330*2*PI*t)*0.4:s=44100:d=3",
            "-f", "lavfi", "-i", "aevalsrc=sin(550*2*PI*t)*0.3|sin(550*2*PI*t)*0.3:s=44100:d=3",
            "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=ger",
        ])
    }

    /// `list --json` lists a probed file's tracks with their languages.
    @Test func listShowsAFilesTracks() async throws {
        let folder = try TemporaryDirectory()
        for (file, expected) in [(try await Self.twoLanguages(), ["audio 1 eng", "audio 2 ger"]), (try await SubtitleFixtures.video(with: "ass"), ["audio 1 -", "subtitle 1 eng"])] {
            let list = try await Mediaplay.run(["list", "--json", "--feed", file, "--cache-dir", folder.path + "/cache"])
            #expect(list.status == 0, "\(list.stderr)")
            let document = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
            let media = (document?["items"] as? [[String: Any]])?.first?["media"] as? [String: Any]
            let tracks = (media?["tracks"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "") \($0["number"] ?? "") \($0["language"] as? String ?? "-")" }
            #expect(tracks == expected, "\(file)")
        }
    }

    @Test func anAudioTrackIsChosenAndSwitchedSampleForSample() async throws {
        let film = try await Self.twoLanguages()
        let folder = try TemporaryDirectory()
        let english = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-i", film, "-map", "0:a:0", "-f", "s16le", "-"]).stdout
        let german = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-i", film, "-map", "0:a:1", "-f", "s16le", "-"]).stdout
        for options in [["--alang", "de"], ["--aid", "2"]] {
            let out = folder.path + "/de.wav"
            let result = try await Mediaplay.run(["play", film, "--audio-out", out, "--untimed", "--vo", "none"] + options)
            #expect(result.status == 0, "\(result.stderr)")
            let same = try Recorded.pcm(out) == german
            #expect(same, "\(options): the German track")
        }
        // Switched at one second: English to there, German from there on.
        let script = try folder.write("switch.txt", "play 1\nwait 1s\naudio-track next\nwait 3s\n")
        let out = folder.path + "/switch.wav"
        let result = try await Mediaplay.run(["script", script, "--feed", film, "--audio-out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let second = 44100 * 4
        let recorded = try Recorded.pcm(out)
        #expect(recorded.count == english.count, "one track's length")
        let before = Array(recorded.prefix(second)) == Array(english.prefix(second))
        let after = Array(recorded.dropFirst(second)) == Array(german.dropFirst(second))
        #expect(before, "English for the first second")
        #expect(after, "German from the second on")
        let one = try await Mediaplay.run(["script", try folder.write("one.txt", "play 1\naudio-track next\n"), "--feed", try await SubtitleFixtures.plainVideo(), "--audio-out", out])
        #expect(one.stderr.contains("the current item has one audio track"), "\(one.stderr)")
    }
}

/// The background player's subtitles and tracks: `status`, `status --json`
/// and observe events, and the track commands (real time: the serial phase).
@Suite struct BackgroundSubtitleTests {
    @Test func statusCarriesTheLineAndObserversHearIt() async throws {
        let folder = try TemporaryDirectory()
        let video = try await SubtitleTests.withSidecar(folder)
        let world = try await ToneFeedHome(long: true)
        world.feed = try world.folder.write("feed.json", #"[{"type": "video", "title": "Movie", "url": "file://\#(video)"}]"#)
        #expect(try await world.run("toggle", "1").status == 0)
        #expect(try await world.run("toggle", "1").stdout.hasPrefix("⏸ paused 1"))
        #expect(try await world.run("seek", "1").status == 0)
        var current = BackgroundPlayerTests.current(try await world.status())
        #expect(current?["subtitle"] as? String == "Hello world", "\(String(describing: current))")
        let tracks = current?["tracks"] as? [String: Any]
        #expect(tracks?["subtitleTrack"] as? Int == 1 && (tracks?["subtitles"] as? [[String: Any]])?.first?["file"] as? String == "movie.srt")
        let text = try await world.run("status")
        #expect(text.stdout.contains("subtitles 1 (movie.srt) of 1") && text.stdout.contains("💬 Hello world"), "\(text.stdout)")
        // Hidden: no line, and no track shown.
        let off = try await world.run("subtitle", "off")
        #expect(off.status == 0 && off.stdout.contains("subtitles off (1)"), "\(off.stdout)\(off.stderr)")
        current = BackgroundPlayerTests.current(try await world.status())
        #expect(current?["subtitle"] == nil && (current?["tracks"] as? [String: Any])?["subtitleTrack"] == nil)
        #expect(try await world.run("subtitle", "on").status == 0)
        // An observer hears the line change.
        let observer = try Mediaplay.start(["status", "--follow", "--json"], environment: world.environment)
        // Time to connect and observe: with --json the follower prints
        // nothing until an event, and nothing else shows that the player
        // has taken its observe (the paused player sends no events).
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await world.run("seek", "2").status == 0)
        try await observer.waitForStdout { $0.contains(#""event":"subtitle""#) && $0.contains(#""subtitle":"Two lines\nsecond line""#) }
        observer.kill(SIGINT)
        let heard = try await observer.wait().stdout
        #expect(heard.contains(#""event":"subtitle""#) && heard.contains(#""subtitle":"Two lines\nsecond line""#), "\(heard)")
        // Later by 0.5 s: at 2 s the first cue's end has not come.
        let delayed = try await world.run("sub-delay", "+0.7")
        #expect(delayed.stdout.contains("sub delay +0.7 s"), "\(delayed.stdout)")
        #expect(BackgroundPlayerTests.current(try await world.status())?["subtitle"] as? String == "Hello world")
        #expect(try await world.run("subtitle", "4").status == 66)
        // One audio track: no other to switch to, a track it does not have (66, as the help says).
        #expect(try await world.run("audio-track", "next").status == 66)
        _ = try await world.run("quit")
    }
}
