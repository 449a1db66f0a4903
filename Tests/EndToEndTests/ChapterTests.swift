import Foundation
import Testing
import InProcessRunner
import TestKit

/// Chapters: from a file's container (FFMETADATA chapters in an m4a made by
/// ffmpeg) and from a podcast feed (Podlove Simple Chapters); `chapter next`
/// lands on the chapter's first sample; status names the chapter.
@Suite struct ChapterTests {
    static let metadata = """
        ;FFMETADATA1
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=10000
        title=Part One
        [CHAPTER]
        TIMEBASE=1/1000
        START=10000
        END=25000
        title=Part Two
        [CHAPTER]
        TIMEBASE=1/1000
        START=25000
        END=30000
        title=Part Three

        """

    /// A 30-second m4a (ALAC: lossless, so a seek is checked sample for sample)
    /// with three chapters: long enough that a busy machine's delays between
    /// commands never reach its end.
    static func chaptered() async throws -> String {
        let folder = try TemporaryDirectory()
        let meta = try folder.write("chapters.txt", metadata)
        return try await Fixtures.make("chapters-alac-30s.m4a", [
            "-f", "lavfi", "-i", "aevalsrc=sin(330*2*PI*t)*0.4|sin(440*2*PI*t)*0.4:s=44100:d=30", "-i", meta,
            "-map", "0:a", "-map_metadata", "1", "-map_chapters", "1", "-c:a", "alac",
        ])
    }

    /// Item `number` started in the background player, paused at once and
    /// back at its first chapter: a busy machine's delays move nothing.
    static func pausedAtTheStart(_ world: UserHome, _ number: String) async throws {
        let started = try await world.run("toggle", number)
        #expect(started.status == 0, "\(started.stdout)\(started.stderr)")
        let paused = try await world.run("toggle", number)
        #expect(paused.stdout.hasPrefix("⏸ paused \(number)"), "after \(started.stdout): \(paused.stdout)\(paused.stderr)")
        _ = try await world.run("chapter", "1")
    }

    @Test func chaptersAreListedAndChapterNextLandsOnItsFirstSample() async throws {
        let file = try await Self.chaptered()
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.json", #"[{"type": "audio", "title": "Talk", "url": "file://\#(file)"}]"#)
        let list = try await Mediaplay.runInProcess(["list", "--json", "--feed", feed, "--cache-dir", folder.path + "/cache"])
        #expect(list.status == 0, "\(list.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        let item = (document?["items"] as? [[String: Any]])?.first
        let chapters = (item?["chapters"] as? [[String: Any]]) ?? []
        #expect(chapters.map { $0["title"] as? String } == ["Part One", "Part Two", "Part Three"])
        #expect(chapters.map { $0["start"] as? Double } == [0, 10, 25])
        #expect(((item?["media"] as? [String: Any])?["chapters"] as? [Any])?.count == 3)
        // In virtual time: straight to chapter 2, then played out.
        let script = try folder.write("chapters.txt", """
            play 1
            chapter next
            wait-until ended 1 30s
            """)
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.runInProcess(["script", script, "--feed", feed, "--audio-out", out])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(file, start: 10)), "from chapter 2's first sample, as ffmpeg -ss 10 decodes it")
        let last = try folder.write("last.txt", """
            play 1
            chapter 3
            chapter next
            """)
        let refused = try await Mediaplay.runInProcess(["script", last, "--feed", feed, "--audio-out", out])
        #expect(refused.status != 0 && refused.stderr.contains("last.txt:3: already in the last chapter"), "\(refused.stderr)")
    }

    @Test func statusNamesTheChapterAndAPodcastsChaptersWin() async throws {
        let file = try await Self.chaptered()
        let world = try await ToneFeedHome(long: true)
        world.feed = try world.folder.write("podcast.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:psc="http://podlove.org/simple-chapters">
              <channel><title>Chaptered</title>
                <item><title>Talk</title><guid>talk</guid>
                  <enclosure url="file://\(file)" type="audio/mp4"/>
                </item>
                <item><title>Show</title><guid>show</guid>
                  <enclosure url="file://\(file)" type="audio/mp4"/>
                  <psc:chapters version="1.2">
                    <psc:chapter start="00:00:00" title="Welcome"/>
                    <psc:chapter start="00:00:20" title="Goodbye"/>
                  </psc:chapters>
                </item>
              </channel>
            </rss>
            """)
        try await Self.pausedAtTheStart(world, "1")
        let next = try await world.runInProcess("chapter", "next")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.contains("chapter 2/3 Part Two"), "\(next.stdout)")
        #expect(try await world.runInProcess("status").stdout.contains("chapter 2/3 Part Two"))
        let listed = try JSONSerialization.jsonObject(with: Data(try await world.runInProcess("list", "--json").stdout.utf8)) as? [String: Any]
        let show = (listed?["items"] as? [[String: Any]])?.last
        #expect((show?["chapters"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Welcome", "Goodbye"], "the feed's chapters")
        try await Self.pausedAtTheStart(world, "2")
        let podcast = try await world.runInProcess("chapter", "2")
        #expect(podcast.stdout.contains("chapter 2/2 Goodbye"), "\(podcast.stdout)\(podcast.stderr)")
        #expect(try await world.runInProcess("chapter", "9").status == 66)
        _ = try await world.runInProcess("quit")
    }

    /// Podcasting 2.0: the episode names a chapters file; the background
    /// player reads it as the episode plays, and its chapters win.
    @Test func aPodcastChaptersFileIsReadWhenTheEpisodePlays() async throws {
        let file = try await Self.chaptered()
        let server = try TestHTTPServer()
        server.serve("/ep/chapters.json", bytes: Array(#"{"version": "1.2.0", "chapters": [{"startTime": 0, "title": "Cold open"}, {"startTime": 5, "title": "Hidden", "toc": false}, {"startTime": 15, "title": "Interview"}]}"#.utf8))
        let world = try await ToneFeedHome(long: true)
        world.feed = try world.folder.write("podcast.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">
              <channel><title>Index</title>
                <item><title>Episode</title><guid>ep</guid>
                  <enclosure url="file://\(file)" type="audio/mp4"/>
                  <podcast:chapters url="\(server.url("/ep/chapters.json").absoluteString)" type="application/json+chapters"/>
                </item>
              </channel>
            </rss>
            """)
        try await Self.pausedAtTheStart(world, "1")
        // The chapters file read, the player says so (a metadata event).
        _ = try await world.waitForPlayer { ($0["chapter"] as? [String: Any])?["title"] as? String == "Cold open" }
        let status = try await world.runInProcess("status").stdout
        #expect(status.contains("chapter 1/2 Cold open"), "\(status)")
        let second = try await world.runInProcess("chapter", "2")
        #expect(second.stdout.contains("chapter 2/2 Interview"), "\(second.stdout)\(second.stderr)")
        #expect(server.getCount("/ep/chapters.json") == 1, "read once")
        _ = try await world.runInProcess("quit")
    }
}
