import Foundation
import Testing
import InProcessRunner
import TestKit

/// Daily use without surprises (issue 43), as processes: a playlist plays
/// past a bad file, every player keeps your place, config mistakes lock
/// no one out, the background player's queue is the default, and the
/// podcast chores take one command.
@Suite struct DailyUseTests {
    /// A folder of three files, the second random bytes, and the two good
    /// files' paths.
    static func brokenFolder(in folder: TemporaryDirectory) async throws -> (root: String, good: [String]) {
        let root = folder.path + "/Broken"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let one = try await Fixtures.make("skip-one.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "pcm_s16le"])
        let three = try await Fixtures.make("skip-three.wav", ["-f", "lavfi", "-i", "sine=frequency=660:duration=1", "-c:a", "pcm_s16le"])
        try FileManager.default.copyItem(atPath: one, toPath: root + "/1 one.wav")
        try Data(TestHTTPServer.bytes(count: 50_000, seed: 43)).write(to: URL(fileURLWithPath: root + "/2 broken.wav"))
        try FileManager.default.copyItem(atPath: three, toPath: root + "/3 three.wav")
        return (root, [root + "/1 one.wav", root + "/3 three.wav"])
    }

    static func joinedPCM(_ files: [String]) async throws -> [UInt8] {
        var joined: [UInt8] = []
        for file in files { joined += try await Fixtures.referencePCM(file) }
        return joined
    }

    static func errorLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.hasPrefix("mediaplay:") }
    }

    /// `play` over a folder with a broken file, an M3U with a missing entry,
    /// and both: each bad one gets one line, everything else plays (the
    /// recording is ffmpeg's decodings of the good files joined), and the
    /// exit status is the worst failure's (65 undecodable, 66 missing).
    @Test func playGoesPastABrokenFileAndAMissingEntry() async throws {
        let folder = try TemporaryDirectory()
        let (root, good) = try await Self.brokenFolder(in: folder)
        let out = folder.path + "/out.wav"
        let played = try await Mediaplay.runInProcess(["play", root, "--audio-out", out, "--untimed"])
        #expect(played.status == 65, "\(played.stderr)")
        #expect(Self.errorLines(played.stderr) == [#"mediaplay: item 2 "2 broken": it is not a media file FFmpeg can read (no known audio, video or picture format)"#], "\(played.stderr)")
        #expect(played.stderr.contains("ended \"3 three\""), "the third plays: \(played.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Self.joinedPCM(good)))

        let playlist = try folder.write("mix.m3u", "#EXTM3U\n\(good[0])\n\(folder.path)/missing.wav\n\(good[1])\n")
        let mix = try await Mediaplay.runInProcess(["play", playlist, "--audio-out", out, "--untimed"])
        #expect(mix.status == 66, "\(mix.stderr)")
        #expect(Self.errorLines(mix.stderr) == ["mediaplay: item 2 \"missing\": no readable file at \(folder.path)/missing.wav"], "\(mix.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Self.joinedPCM(good)))

        // A missing first entry, the folder after it: the worst status is the missing file's.
        let first = try folder.write("first.m3u", "\(folder.path)/missing.wav\n")
        let both = try await Mediaplay.runInProcess(["play", first, root, "--audio-out", out, "--untimed"])
        #expect(both.status == 66, "\(both.stderr)")
        #expect(Self.errorLines(both.stderr).count == 2, "one line each: \(both.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Self.joinedPCM(good)))
    }

    /// A podcast's dates are a column (and `--sort date` orders by them);
    /// an unknown column is refused with the list of known ones.
    @Test func listShowsDatesAndPositions() async throws {
        let folder = try TemporaryDirectory()
        let feed = try folder.write("pod.json", """
            {"version": "https://jsonfeed.org/version/1.1", "title": "Pod", "items": [
              {"id": "a", "title": "Older", "date_published": "2025-11-03T06:00:00Z", "attachments": [{"url": "https://example.invalid/a.mp3", "mime_type": "audio/mpeg"}]},
              {"id": "b", "title": "Newer", "date_published": "2025-11-10T06:00:00Z", "attachments": [{"url": "https://example.invalid/b.mp3", "mime_type": "audio/mpeg"}]}
            ]}
            """)
        let environment = ["TZ": "UTC", "COLUMNS": "100"]
        let listed = try await Mediaplay.runInProcess(["list", "--feed", feed, "--cache-dir", folder.path + "/cache", "--columns", "title,date,position", "--sort", "date", "--reverse"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.dropFirst().first?.hasPrefix("TITLE") == true && lines.dropFirst().first?.contains("DATE") == true && lines.dropFirst().first?.contains("POSITION") == true, "\(listed.stdout)")
        #expect(lines.dropFirst(2).first == "Newer  2025-11-10", "newest first: \(listed.stdout)")
        #expect(lines.dropFirst(3).first == "Older  2025-11-03", "\(listed.stdout)")
        let plain = try await Mediaplay.runInProcess(["list", "--feed", feed, "--cache-dir", folder.path + "/cache"], environment: environment)
        #expect(plain.stdout.contains("DATE") && plain.stdout.contains("2025-11-03"), "dated items show their date by default: \(plain.stdout)")
        let bad = try await Mediaplay.runInProcess(["list", "--feed", feed, "--columns", "title,when"], environment: environment)
        #expect(bad.status == 64, "\(bad.stderr)")
    }

    /// Without --feed or MEDIAPLAY_FEED, toggle's numbers are those of the
    /// feed the background player plays (its queue), whatever the default
    /// feed is; another feed named is said so, and --replace switches.
    @Test func theRunningPlayersQueueIsTheDefault() async throws {
        let tone = try await Fixtures.make("tone-20s.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=20", "-c:a", "pcm_s16le"])
        let home = try await UserHome()
        let copy = home.folder.path + "/tone2.wav"
        link(tone, copy)
        let talks = try home.folder.write("talks.json", """
            [{"type": 1, "title": "Talk one", "url": "file://\(tone)"}, {"type": 1, "title": "Talk two", "url": "file://\(copy)"}]
            """)
        let other = try home.folder.write("other.json", #"[{"type": 1, "title": "Other", "url": "file://\#(tone)"}]"#)
        let environment = home.environment.filter { $0.key != "MEDIAPLAY_FEED" }
        defer { Task { _ = try? await Mediaplay.runInProcess(["quit"], environment: environment) } }
        let first = try await Mediaplay.runInProcess(["toggle", "1", "--feed", talks], environment: environment)
        #expect(first.status == 0 && first.stdout.hasPrefix("▶ playing 1 \"Talk one\""), "\(first.stdout)\(first.stderr)")
        // No feed named: item 2 of what it plays (the quick path and the full command alike).
        // (Playing or paused: on a busy machine autoplay may have reached it.)
        let second = try await Mediaplay.runInProcess(["toggle", "2"], environment: environment)
        #expect(second.status == 0 && second.stdout.contains(" 2 \"Talk two\""), "\(second.stdout)\(second.stderr)")
        let full = try await Mediaplay.runInProcess(["toggle", "2", "--no-wait"], environment: environment)
        #expect(full.status == 0 && full.stdout.contains(" 2 \"Talk two\""), "\(full.stdout)\(full.stderr)")
        // Another feed named: said, nothing done; --replace switches.
        let refused = try await Mediaplay.runInProcess(["toggle", "1", "--feed", other], environment: environment)
        #expect(refused.status == 69 && refused.stderr.contains("plays the feed \(talks), not \(other)") && refused.stderr.contains("--replace"), "\(refused.stderr)")
        let replaced = try await Mediaplay.runInProcess(["toggle", "1", "--feed", other, "--replace"], environment: environment)
        #expect(replaced.status == 0 && replaced.stdout.hasPrefix("▶ playing 1 \"Other\""), "\(replaced.stdout)\(replaced.stderr)")
        let status = try await Mediaplay.runInProcess(["status"], environment: environment)
        #expect(status.stdout.contains("feed: \(other)"), "\(status.stdout)")
        _ = try await Mediaplay.runInProcess(["quit"], environment: environment)
    }

    /// `toggle 99` names no item: it says so and leaves no background
    /// player running (it started one and left it, playing nothing).
    @Test func aToggleOfNoSuchItemLeavesNoPlayerBehind() async throws {
        let home = try await ToneFeedHome()
        let result = try await home.runInProcess("toggle", "99")
        #expect(result.status == 66 && result.stderr.contains("no item \"99\""), "\(result.stderr)")
        #expect(try await home.runInProcess("status").status == 69, "nobody home")
        #expect(!FileManager.default.fileExists(atPath: home.socket))
    }

    /// A negative value after `--`, as `sub-delay -- -1.2` takes it.
    @Test func negativeValuesAfterADoubleDash() async throws {
        let home = try await UserHome()
        let volume = try await home.runInProcess("volume", "--", "-10")
        #expect(volume.status == 0 && volume.stdout.contains("90"), "\(volume.stdout)\(volume.stderr)")
        let seek = try await home.runInProcess("seek", "--", "-10")
        #expect(seek.status == 69, "read, and no player to seek in: \(seek.stderr)")
        #expect(try await home.runInProcess("seek", "--", "-x").status == 64)
    }

    /// A URL played directly is no feed's: a 404 says to check the URL, and
    /// a refused connection, which downloaded nothing, says nothing is kept.
    @Test func aDirectURLsFailureSaysWhatHappened() async throws {
        let server = try TestHTTPServer()
        let gone = try await Mediaplay.runInProcess(["play", server.url("/gone.mp3").absoluteString, "--no-audio", "--untimed"])
        #expect(gone.status == 69, "\(gone.stderr)")
        #expect(gone.stderr.contains("check the URL") && !gone.stderr.contains("feed"), "\(gone.stderr)")
        let refused = try await Mediaplay.runInProcess(["play", "http://127.0.0.1:1/song.mp3", "--no-audio", "--untimed"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(!refused.stderr.contains("part downloaded is kept") && refused.stderr.contains("retry: mediaplay play http://127.0.0.1:1/song.mp3"), "\(refused.stderr)")
        #expect(Self.errorLines(refused.stderr).count == 1 && refused.stderr.components(separatedBy: "item 1").count == 2, "named once: \(refused.stderr)")
    }

    /// What `--help` says is what the commands do.
    @Test func helpSaysWhatTheCommandsDo() async throws {
        let play = try await Mediaplay.run(["play", "--help"])
        #expect(!play.stdout.contains("in path order)") && play.stdout.contains("by disc and track"), "\(play.stdout)")
        #expect(play.stdout.contains("plays on") && play.stdout.contains("M:SS"), "\(play.stdout)")
        let chapter = try await Mediaplay.run(["chapter", "--help"])
        #expect(chapter.stdout.contains("Podcasting 2.0"), "\(chapter.stdout)")
        let list = try await Mediaplay.run(["list", "--help"])
        for column in ["artist", "album", "date", "position"] { #expect(list.stdout.contains(column), "\(column): \(list.stdout)") }
        let readme = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/README.md", encoding: .utf8)
        #expect(readme.contains("ARTIST") && readme.contains("ALBUM") && readme.contains("fetch --new") && readme.contains("feeds add"), "the README's table")
    }

    /// The podcast chores, one command each: `feeds add` (the feed read
    /// once before it is kept), `mark` with ranges, lists and --all,
    /// `fetch --new` (newest first, --limit), `feeds remove`.
    @Test func podcastChoresTakeOneCommand() async throws {
        let server = try TestHTTPServer()
        let episode = try await Fixtures.make("episode.mp3", ["-f", "lavfi", "-i", "sine=frequency=550:duration=1.5", "-c:a", "libmp3lame"])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: episode)))
        var items = ""
        for number in 1...3 {
            server.serve("/ep\(number).mp3", bytes: bytes, contentType: "audio/mpeg")
            items += """
                <item><title>Episode \(number)</title><guid>ep\(number)</guid>
                <enclosure url="\(server.url("/ep\(number).mp3").absoluteString)" type="audio/mpeg"/>
                <pubDate>Mon, 0\(number) Dec 2025 06:00:00 +0000</pubDate></item>
                """
        }
        server.serve("/pod.rss", bytes: Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Loopback Radio</title>\(items)</channel></rss>".utf8), contentType: "application/rss+xml")
        let url = server.url("/pod.rss").absoluteString
        let home = try await UserHome()
        var environment = home.environment
        environment["XDG_CONFIG_HOME"] = home.folder.path + "/config"
        func run(_ arguments: String...) async throws -> RunResult { try await Mediaplay.runInProcess(arguments, environment: environment) }
        let feedsFile = home.folder.path + "/config/mediaplay/feeds.toml"

        let added = try await run("feeds", "add", "pod", url)
        #expect(added.status == 0 && added.stdout.contains("Added pod: \"Loopback Radio\", 3 items"), "\(added.stdout)\(added.stderr)")
        #expect(try String(contentsOfFile: feedsFile, encoding: .utf8).contains("pod = \"\(url)\""))
        #expect(try await run("feeds", "add", "pod", url).stdout.contains("named already"))
        let unreadable = try await run("feeds", "add", "gone", server.url("/gone.rss").absoluteString)
        #expect(unreadable.status == 66, "read first, and not kept: \(unreadable.stderr)")
        #expect(try await run("feeds", "add", "local", "/tmp/feed.json").status == 64, "http(s) only, as feeds import")
        #expect(try await run("feeds", "add", "pod", server.url("/other.rss").absoluteString).status == 64, "a name taken")
        #expect(!(try String(contentsOfFile: feedsFile, encoding: .utf8)).contains("gone"))

        func played() async throws -> [Bool] {
            let listed = try await run("list", "--json", "--feed", "pod")
            return try JSONDecoder().decode(ListJSON.self, from: Data(listed.stdout.utf8)).items.map { $0.played ?? false }
        }
        let range = try await run("mark", "1-2", "played", "--feed", "pod")
        #expect(range.status == 0 && range.stdout == "1 Episode 1: played\n2 Episode 2: played\n", "\(range.stdout)\(range.stderr)")
        #expect(try await played() == [true, true, false])
        #expect(try await run("mark", "--all", "unplayed", "--feed", "pod").status == 0)
        #expect(try await played() == [false, false, false])
        #expect(try await run("mark", "1,3", "played", "--feed", "pod").status == 0)
        #expect(try await played() == [true, false, true])
        #expect(try await run("mark", "2-9", "played", "--feed", "pod").status == 66, "past the end")
        #expect(try await run("mark", "--all", "unplayed", "--feed", "pod").status == 0)

        // The two newest not played: episodes 3 and 2, not 1.
        let fetched = try await run("fetch", "--new", "--limit", "2", "--feed", "pod")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let states = try JSONDecoder().decode(ListJSON.self, from: Data(try await run("list", "--json", "--feed", "pod").stdout.utf8)).items.map(\.state)
        #expect(states == ["not-downloaded", "cached", "cached"], "\(states)")

        let removed = try await run("feeds", "remove", "pod")
        #expect(removed.status == 0 && removed.stdout.contains("Removed pod"), "\(removed.stdout)\(removed.stderr)")
        #expect(try await run("feeds", "remove", "pod").status == 66)
        #expect(try await run("list", "--feed", "pod").status == 66, "the name is gone")
    }
}
