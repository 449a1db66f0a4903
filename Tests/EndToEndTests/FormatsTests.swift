import Foundation
import Testing
import InProcessRunner
import TestKit

/// The media people keep, as a user meets it: a folder of music, a podcast
/// served over http, a playlist from the network, several files at once.
@Suite struct FormatsTests {
    /// A folder: two tagged tracks (numbered so that name order and number
    /// order differ), an untagged FLAC in a subfolder, a cover, a text file,
    /// a link out of the folder and a link loop.
    static func musicFolder(in folder: TemporaryDirectory) async throws -> (root: String, files: [String]) {
        let root = folder.path + "/Music"
        try FileManager.default.createDirectory(atPath: root + "/Album/Disc", withIntermediateDirectories: true)
        var files: [String] = []
        for (number, frequency) in [(2, 440), (10, 660)] {
            let made = try await Fixtures.make("track-\(number).mp3", [
                "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=1", "-metadata", "title=Song \(number)", "-metadata", "artist=Björk",
                "-c:a", "libmp3lame", "-b:a", "96k",
            ])
            let path = root + "/Album/\(number) Track.mp3"
            try FileManager.default.copyItem(atPath: made, toPath: path)
            files.append(path)
        }
        let flac = try await Fixtures.make("untagged-mono.flac", ["-f", "lavfi", "-i", "sine=frequency=330:duration=1", "-c:a", "flac"])
        try FileManager.default.copyItem(atPath: flac, toPath: root + "/Album/Disc/zz.flac")
        files.append(root + "/Album/Disc/zz.flac")
        let cover = try await Fixtures.make("cover-64.jpg", ["-f", "lavfi", "-i", "testsrc2=size=64x64:duration=0.1", "-frames:v", "1"])
        try FileManager.default.copyItem(atPath: cover, toPath: root + "/Album/cover.jpg")
        _ = try folder.write("Music/Album/notes.txt", "liner notes")
        symlink("/etc", root + "/etc")
        symlink("..", root + "/Album/Disc/up")
        return (root, files)
    }

    static func joinedPCM(_ files: [String]) async throws -> [UInt8] {
        var joined: [UInt8] = []
        for file in files { joined += try await Fixtures.referencePCM(file) }
        return joined
    }

    @Test func aFolderListsItsMediaInPathOrderWithTagsAndCover() async throws {
        let folder = try TemporaryDirectory()
        let (root, _) = try await Self.musicFolder(in: folder)
        let result = try await Mediaplay.runInProcess(["list", "--json", "--feed", root, "--cache-dir", folder.path + "/cache"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        #expect(document.feed.title == "Music")
        #expect(document.items.map(\.title) == ["Song 2", "Song 10", "zz"], "title tags where the folder gives none; 2 before 10")
        #expect(document.items.map(\.kind) == ["audio", "audio", "audio"])
        #expect(document.items[0].thumbnail == root + "/Album/cover.jpg" && document.items[2].thumbnail == nil)
        #expect(result.stderr.contains("etc links outside the folder; not followed"), "\(result.stderr)")
        #expect(result.stderr.contains("a link loop"), "\(result.stderr)")
    }

    /// `play FOLDER` plays its items in turn: the recording is ffmpeg's
    /// decodings of the files, joined.
    @Test func playingAFolderRecordsEveryFileInTurn() async throws {
        let folder = try TemporaryDirectory()
        let (root, files) = try await Self.musicFolder(in: folder)
        // The FLAC is mono at 44.1 kHz like the MP3s: one recording format.
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.runInProcess(["play", root, "--audio-out", out, "--untimed", "--cache-dir", folder.path + "/cache"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Self.joinedPCM(files)))
        // Files and a folder on one command line, in the order given.
        let both = try await Mediaplay.runInProcess(["play", files[2], root + "/Album/10 Track.mp3", "--audio-out", out, "--untimed"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Self.joinedPCM([files[2], files[1]])))
    }

    /// An album whose names sort against its track tags: it plays, lists
    /// and numbers by disc and track (the quick list, which reads only the
    /// index, the same), each file is called by its title tag, and a file
    /// with cover art of its own (no cover.jpg beside it) shows that.
    @Test func anAlbumFollowsItsTrackTagsAndItsOwnCover() async throws {
        let folder = try TemporaryDirectory()
        let root = folder.path + "/Album"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let art = try await Fixtures.make("cover-32.jpg", ["-f", "lavfi", "-i", "testsrc2=size=32x32:duration=0.1", "-frames:v", "1"])
        // Names a, b, c; tags say disc 2 track 1, disc 1 track 2, disc 1 track 1.
        var files: [String: String] = [:]
        for (name, disc, track, frequency) in [("a", 2, 1, 440), ("b", 1, 2, 550), ("c", 1, 1, 660)] {
            var arguments = ["-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=0.5"]
            if name == "b" { arguments += ["-i", art, "-map", "0", "-map", "1", "-c:v", "mjpeg", "-disposition:v", "attached_pic"] }
            arguments += ["-metadata", "title=Tune \(name.uppercased())", "-metadata", "track=\(track)/2", "-metadata", "disc=\(disc)", "-c:a", "libmp3lame", "-b:a", "96k"]
            let made = try await Fixtures.make("album-\(name).mp3", arguments)
            files[name] = root + "/\(name).mp3"
            try FileManager.default.copyItem(atPath: made, toPath: files[name]!)
        }
        let cache = folder.path + "/cache"
        let first = try await Mediaplay.runInProcess(["list", "--json", "--feed", root, "--cache-dir", cache])
        #expect(first.status == 0, "\(first.stderr)")
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(first.stdout.utf8))
        #expect(document.items.map(\.title) == ["Tune C", "Tune B", "Tune A"], "disc 1 track 1, disc 1 track 2, disc 2")
        #expect(document.items.map(\.thumbnail) == [nil, files["b"], nil], "b's own cover art")
        let again = try await Mediaplay.runInProcess(["list", "--json", "--feed", root, "--cache-dir", cache])
        #expect(again.stdout == first.stdout, "the second list (from the index alone) numbers the same")
        let out = folder.path + "/out.wav"
        let played = try await Mediaplay.runInProcess(["play", root, "--audio-out", out, "--untimed", "--cache-dir", cache])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Self.joinedPCM([files["c"]!, files["b"]!, files["a"]!])))
        #expect(played.stderr.contains("\"Tune C\"") && !played.stderr.contains("\"c\""), "called by its tag: \(played.stderr)")
    }

    static func podcast(_ server: TestHTTPServer) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
          <channel>
            <title>Loopback Radio</title>
            <item>
              <title>Episode 1</title>
              <guid>ep1</guid>
              <enclosure url="\(server.url("/ep1.mp3").absoluteString)" type="audio/mpeg"/>
              <itunes:duration>0:01</itunes:duration>
              <pubDate>Mon, 03 Nov 2025 06:00:00 +0000</pubDate>
              <description>&lt;p&gt;Notes&lt;/p&gt;</description>
            </item>
            <item><title>Announcement</title><description>No audio</description></item>
          </channel>
        </rss>
        """
    }

    /// A podcast from the network lists with its kinds and titles, and an
    /// episode plays bit-exact against ffmpeg.
    @Test func aPodcastEpisodePlaysExactly() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        let episode = try await Fixtures.make("episode.mp3", ["-f", "lavfi", "-i", "sine=frequency=550:duration=1.5", "-c:a", "libmp3lame"])
        server.serve("/ep1.mp3", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: episode))), contentType: "audio/mpeg")
        server.serve("/podcast", bytes: Array(Self.podcast(server).utf8), contentType: "application/rss+xml")
        let feed = server.url("/podcast").absoluteString
        let list = try await Mediaplay.runInProcess(["list", "--json", "--feed", feed, "--cache-dir", folder.path + "/cache"])
        #expect(list.status == 0, "\(list.stderr)")
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(list.stdout.utf8))
        #expect(document.feed.title == "Loopback Radio")
        #expect(document.items.map(\.title) == ["Episode 1", "Announcement"])
        #expect(document.items.map(\.state) == ["not-downloaded", "text-only"])
        #expect(document.items[0].id == "ep1" && document.items[0].duration == 1 && document.items[0].published == "2025-11-03T06:00:00Z")
        #expect(document.items[0].description == "Notes")
        let out = folder.path + "/episode.wav"
        let played = try await Mediaplay.runInProcess(["play", "1", "--feed", feed, "--audio-out", out, "--untimed", "--cache-dir", folder.path + "/cache"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(episode)))
    }

    /// A playlist from the network reaches no local file, whatever it names.
    @Test func aRemotePlaylistCannotReachALocalFile() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        let secret = try folder.write("secret.mp3", "not for the network")
        server.serve("/lists/mix.m3u", bytes: Array("#EXTM3U\n\(secret)\nfile://\(secret)\n../../secret.mp3\n#EXTINF:5,Fine\nok.mp3\n".utf8), contentType: "audio/x-mpegurl")
        let result = try await Mediaplay.runInProcess(["list", "--json", "--feed", server.url("/lists/mix.m3u").absoluteString, "--cache-dir", folder.path + "/cache"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        #expect(document.items.map(\.state) == ["invalid", "invalid", "invalid", "not-downloaded"])
        #expect(document.items[0].error == "a playlist from the network cannot name local files (\(secret))")
        #expect(document.items[3].url == server.url("/lists/ok.mp3").absoluteString && document.items[3].title == "Fine")
        #expect(document.items.allSatisfy { $0.url?.hasPrefix("/") != true })
        let play = try await Mediaplay.runInProcess(["play", "1", "--feed", server.url("/lists/mix.m3u").absoluteString, "--no-audio", "--untimed", "--cache-dir", folder.path + "/cache"])
        #expect(play.status != 0 && play.stderr.contains("cannot name local files"), "\(play.stderr)")
    }

    /// A podcast client's marks: what appeared since the first read is new;
    /// an episode played to its end (in the background player) is played;
    /// `mark` sets them by hand and `list --unplayed` leaves played ones out.
    @Test func playedAndNewMarksFollowTheFeedAndThePlayer() async throws {
        let folder = try TemporaryDirectory()
        let tone = try await Fixtures.make("short-tone.wav", ["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "pcm_s16le"])
        // Marks belong to the file, as positions do: one file per episode.
        for number in 1...2 { try FileManager.default.copyItem(atPath: tone, toPath: folder.path + "/ep\(number).wav") }
        func rss(_ count: Int) -> String {
            let items = (1...count).map { #"<item><title>Ep \#($0)</title><guid>ep\#($0)</guid><enclosure url="file://\#(folder.path)/ep\#($0).wav" type="audio/wav"/></item>"# }
            return #"<rss version="2.0"><channel><title>Marks</title>"# + items.joined() + "</channel></rss>"
        }
        let feed = try folder.write("podcast.xml", rss(1))
        let environment = [
            "XDG_STATE_HOME": folder.path + "/state", "XDG_CACHE_HOME": folder.path + "/cache", "XDG_RUNTIME_DIR": folder.path + "/run",
            "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null",
        ]
        try FileManager.default.createDirectory(atPath: folder.path + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        func list(_ extra: [String] = []) async throws -> ListJSON {
            let result = try await Mediaplay.runInProcess(["list", "--json", "--feed", feed] + extra, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        }
        #expect(try await list().items.map(\.new) == [false], "a feed's first read makes nothing new")
        _ = try folder.write("podcast.xml", rss(2))
        #expect(try await list().items.map(\.new) == [false, true])
        let table = try await Mediaplay.runInProcess(["list", "--feed", feed], environment: environment)
        #expect(table.stdout.contains("• Ep 2") && table.stdout.contains("1 new"), "\(table.stdout)")

        // Played to its end in the background player (it says so), which
        // then quits: a quit writes what the player has queued (the mark
        // among it) before it answers.
        let toggle = try await Mediaplay.runInProcess(["toggle", "2", "--feed", feed], environment: environment)
        #expect(toggle.status == 0, "\(toggle.stderr)")
        let ended = try await PlayerObserver(socket: folder.path + "/run/mediaplay/mediaplay.sock").waitFor { $0["item"] as? Int == 2 && PlayerObserver.state($0) == "ended" }
        #expect(ended != nil, "item 2 played to its end")
        _ = try await Mediaplay.runInProcess(["quit"], environment: environment)
        let marks = try await list()
        #expect(marks.items.map(\.played) == [false, true] && marks.items.map(\.new) == [false, false])
        #expect(try await list(["--unplayed"]).items.map(\.position) == [1], "numbers stay the feed's")

        // By hand.
        let unmark = try await Mediaplay.runInProcess(["mark", "2", "unplayed", "--feed", feed], environment: environment)
        #expect(unmark.status == 0 && unmark.stdout == "2 Ep 2: unplayed\n", "\(unmark.stderr)")
        let mark = try await Mediaplay.runInProcess(["mark", "1", "played", "--feed", feed], environment: environment)
        #expect(mark.status == 0, "\(mark.stderr)")
        #expect(try await list().items.map(\.played) == [true, false])
        let bad = try await Mediaplay.runInProcess(["mark", "1", "heard", "--feed", feed], environment: environment)
        #expect(bad.status == 64 && bad.stderr.contains("played, unplayed or old"), "\(bad.stderr)")
    }

    /// `toggle PATH`: a file outside the feed plays in the background player
    /// as a one-off item after the feed's; the feed's own file is its item.
    @Test func toggleAFileByItself() async throws {
        let folder = try TemporaryDirectory()
        // A minute each: nothing ends (and autoplay moves on) while the test looks.
        let minute = try await Fixtures.make("minute.wav", ["-f", "lavfi", "-i", "sine=duration=60", "-c:a", "pcm_s16le"])
        let root = folder.path + "/music"
        try FileManager.default.createDirectory(atPath: root + "/Album", withIntermediateDirectories: true)
        let files = [root + "/Album/in-feed.wav", root + "/alone.wav"]
        for file in files { try FileManager.default.copyItem(atPath: minute, toPath: file) }
        let feed = try folder.write("feed.json", #"[{"type": "audio", "title": "In the feed", "url": "file://\#(files[0])"}]"#)
        let environment = [
            "XDG_STATE_HOME": folder.path + "/state", "XDG_CACHE_HOME": folder.path + "/cache", "XDG_RUNTIME_DIR": folder.path + "/run",
            "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null", "MEDIAPLAY_FEED": feed,
        ]
        try FileManager.default.createDirectory(atPath: folder.path + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let alone = try await Mediaplay.runInProcess(["toggle", files[1]], environment: environment)
        #expect(alone.status == 0 && alone.stdout.hasPrefix("▶ playing 2 \"alone.wav\""), "\(alone.stdout) \(alone.stderr)")
        let inFeed = try await Mediaplay.runInProcess(["toggle", root + "/Album/../Album/in-feed.wav"], environment: environment)
        #expect(inFeed.status == 0 && inFeed.stdout.hasPrefix("▶ playing 1 \"In the feed\""), "\(inFeed.stdout) \(inFeed.stderr)")
        let status = try await Mediaplay.runInProcess(["status"], environment: environment)
        #expect(status.stdout.contains("⏸ paused 2 \"alone.wav\""), "\(status.stdout)")
        let missing = try await Mediaplay.runInProcess(["toggle", folder.path + "/nope.mp3"], environment: environment)
        #expect(missing.status == 66 && missing.stderr.contains("file not found"), "\(missing.stderr)")
        let folderGiven = try await Mediaplay.runInProcess(["toggle", root], environment: environment)
        #expect(folderGiven.status == 66 && folderGiven.stderr.contains("not a readable media file"), "\(folderGiven.stderr)")
        _ = try await Mediaplay.runInProcess(["quit"], environment: environment)
    }

    /// Resuming far into an episode not downloaded yet asks the server for
    /// that range at once, instead of waiting for the download to get there.
    @Test func aFarStartInADownloadAsksForTheRange() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        let episode = try await Fixtures.make("minute-32k.mp3", ["-f", "lavfi", "-i", "sine=frequency=300:duration=60:sample_rate=22050", "-c:a", "libmp3lame", "-b:a", "32k", "-ac", "1"])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: episode)))
        server.serve("/episode.mp3", bytes: bytes, contentType: "audio/mpeg")
        // Linearly, 50 s in would take 10 s to arrive.
        server.throttle("/episode.mp3", bytesPerSecond: 20_000)
        let out = folder.path + "/tail.wav"
        let result = try await Mediaplay.run([
            "play", server.url("/episode.mp3").absoluteString, "--start", "50", "--audio-out", out, "--untimed", "--cache-dir", folder.path + "/cache",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let ranges = server.requests("/episode.mp3").compactMap { $0.headers["range"] }
        let farRange = ranges.contains { range in
            range.dropFirst("bytes=".count).split(separator: "-").first.flatMap { Int($0) }.map { $0 > bytes.count / 2 } ?? false
        }
        #expect(farRange, "a range request past the middle: \(ranges) of \(server.requests("/episode.mp3").map(\.headers))")
        // About the last 10 seconds were played (22,050 samples a second, 16-bit mono).
        let played = Double(try Recorded.pcm(out).count) / 2 / 22_050
        #expect(abs(played - 10) < 0.5, "\(played) s")
    }
}
