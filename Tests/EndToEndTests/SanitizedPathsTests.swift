import Foundation
import Testing
import TestKit

/// The paths where the programs hand buffers to C most (pictures scaled for
/// browse, subtitles drawn, feeds parsed, the background player's start and
/// stop), run end to end. CI runs this suite a second time against the
/// programs built with AddressSanitizer and UndefinedBehaviorSanitizer
/// (`make sanitize-programs`): a report there is a file beside the test's
/// folder, and the test fails on it.
@Suite(.serialized) struct SanitizedPathsTests {
    /// A user whose sanitizer reports (if the programs carry sanitizers) are
    /// written to files in the home folder.
    final class World: UserHome, @unchecked Sendable {
        override var environment: [String: String] {
            super.environment.merging([
                "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:log_path=\(folder.path)/asan",
                "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1:log_path=\(folder.path)/ubsan",
            ]) { $1 }
        }

        /// What a sanitizer reported, if anything.
        var reports: [String] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasPrefix("asan.") || $0.hasPrefix("ubsan.") }.map { name in
                (try? String(contentsOfFile: folder.path + "/" + name, encoding: .utf8)) ?? name
            }
        }
    }

    /// A music folder as a new user has one: albums with covers of odd
    /// sizes embedded (FLAC, MP3), an Opus, an m4a whose name is not ASCII.
    static func musicFolder(in world: World) async throws -> String {
        let folder = world.folder.path + "/Music"
        try FileManager.default.createDirectory(atPath: folder + "/Album", withIntermediateDirectories: true)
        let tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"]
        func cover(_ size: String) -> [String] { ["-f", "lavfi", "-i", "testsrc=size=\(size):duration=0.04"] }
        let jobs: [(String, [String])] = [
            ("Album/01 First.flac", tone + cover("300x300") + ["-map", "0:a", "-map", "1:v", "-frames:v", "1", "-c:a", "flac", "-c:v", "png", "-disposition:v", "attached_pic"]),
            ("Album/02 Second.mp3", tone + cover("301x299") + ["-map", "0:a", "-map", "1:v", "-frames:v", "1", "-c:a", "libmp3lame", "-c:v", "mjpeg", "-disposition:v", "attached_pic", "-id3v2_version", "3"]),
            ("Album/03 Third.flac", tone + cover("97x1000") + ["-map", "0:a", "-map", "1:v", "-frames:v", "1", "-c:a", "flac", "-c:v", "png", "-disposition:v", "attached_pic"]),
            ("Song.opus", ["-f", "lavfi", "-i", "sine=frequency=660:duration=1:sample_rate=48000", "-c:a", "libopus"]),
            ("Chanson d’été.m4a", tone + ["-c:a", "aac"]),
        ]
        for (name, arguments) in jobs {
            let result = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments + [folder + "/" + name])
            #expect(result.status == 0, "ffmpeg could not make \(name): \(String(decoding: result.stderr, as: UTF8.self))")
        }
        return folder
    }

    /// browse on a fresh folder with covers: the thumbnails are scaled and
    /// drawn, and q ends it cleanly (it aborted with a corrupted heap).
    @Test func browseOnAFreshMusicFolderWithCovers() async throws {
        let world = try await World()
        let music = try await Self.musicFolder(in: world)
        let session = try await TerminalSession(
            columns: 120, rows: 40, [Mediaplay.executable, "browse", "--images", "blocks", "--feed", music], environment: world.environment
        )
        let grid = await session.waitForScreen(timeout: 60) { screen in
            screen.joined().contains("Chanson") && screen.joined().filter { $0 == "▄" }.count > 100
        }
        #expect(grid.matched, "the grid with its covers: \(grid.screen.joined(separator: "\n"))")
        await session.send("q")
        let exit = await session.waitForExit(timeout: 30)
        #expect(exit?.status == 0, "browse ended with \(String(describing: exit?.status))")
        #expect(world.reports.isEmpty, "\(world.reports)")
    }

    /// Subtitles drawn into every frame of a recording (libass and the
    /// blend), and a feed of each format listed.
    @Test func playWithSubtitlesDrawnAndFeedsListed() async throws {
        let world = try await World()
        let video = try await SubtitleFixtures.plainVideo()
        for format in ["ass", "srt"] {
            let subtitles = try SubtitleFixtures.file(format)
            let frames = world.folder.path + "/frames-\(format)"
            let result = try await Mediaplay.run(
                ["play", video, "--sub-file", subtitles, "--untimed", "--audio-out", world.folder.path + "/out.wav", "--video-out", frames], environment: world.environment
            )
            #expect(result.status == 0, "\(format): \(result.stderr)")
            // Every frame, drawn as ffmpeg's subtitles filter draws it.
            #expect(try Recorded.hashes(frames) == (try await Fixtures.referenceFrameHashes(video, filters: "subtitles=\(subtitles)")), "\(format)")
        }
        let server = try TestHTTPServer()
        let rss = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Show</title>
            <item><title>One</title><enclosure url="http://127.0.0.1:1/one.mp3" type="audio/mpeg" length="1"/><itunes:duration>1:02</itunes:duration></item>
            </channel></rss>
            """
        server.serve("/feed.xml", bytes: Array(rss.utf8))
        server.serve("/list.m3u", bytes: Array("#EXTM3U\n#EXTINF:5,Radio\nhttp://127.0.0.1:1/radio\n".utf8))
        for (path, title) in [("/feed.xml", "One"), ("/list.m3u", "Radio")] {
            let list = try await Mediaplay.run(["list", "--json", "--feed", server.url(path).absoluteString], environment: world.environment)
            #expect(list.status == 0 && list.stdout.contains("\"title\" : \"\(title)\""), "\(path): \(list.stdout) \(list.stderr)")
        }
        #expect(world.reports.isEmpty, "\(world.reports)")
    }

    /// The background player started by a toggle, paused, asked and quit.
    @Test func theBackgroundPlayersToggles() async throws {
        let world = try await World()
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone.flac" }!
        let tone = try await Fixtures.make(fixture.name, fixture.arguments)
        world.feed = try world.folder.write("feed.json", #"[{"type": "audio", "title": "Tone", "url": "file://\#(tone)"}]"#)
        for command in [["toggle", "1"], ["status"], ["toggle", "1"], ["status", "--json"], ["quit"]] {
            let result = try await Mediaplay.run(command, environment: world.environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        #expect(world.reports.isEmpty, "\(world.reports)")
    }
}
