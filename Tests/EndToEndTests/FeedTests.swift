import Foundation
import Testing
import InProcessRunner
import TestKit

/// Feeds as a user meets them: a remote feed kept for offline use and
/// revalidated, the facts-feed shape, durations and tags from the files,
/// and the cache by item.
@Suite struct FeedTests {
    static func feedJSON(_ titles: [String], media: URL? = nil) -> [UInt8] {
        let items = titles.map { #"{"type": 0, "title": "\#($0)", "url": "https://example.org/\#($0).png"}"# }
        return Array(#"{"title": "Remote", "items": [\#(items.joined(separator: ","))]}"#.utf8)
    }

    static func titles(_ stdout: String) throws -> [String] {
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(stdout.utf8))
        return document.items.map(\.title)
    }

    @Test func aRemoteFeedIsKeptRevalidatedAndUsedOffline() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        server.serve("/feed.json", bytes: Self.feedJSON(["one", "two"]), etag: "\"v1\"", contentType: "application/json")
        let arguments = ["list", "--json", "--feed", server.url("/feed.json").absoluteString, "--cache-dir", folder.path + "/cache"]

        let first = try await Mediaplay.runInProcess(arguments)
        #expect(first.status == 0 && first.stderr == "", "\(first.stderr)")
        #expect(try Self.titles(first.stdout) == ["one", "two"])

        // The next read revalidates: a 304 and no body.
        let second = try await Mediaplay.runInProcess(arguments)
        #expect(second.status == 0 && second.stderr == "", "\(second.stderr)")
        #expect(try Self.titles(second.stdout) == ["one", "two"])
        let requests = server.requests("/feed.json")
        #expect(requests.count == 2 && requests[1].headers["if-none-match"] == "\"v1\"", "\(requests.map(\.headers))")

        // The server goes away: the kept copy, said so once, exit 0.
        server.goAway()
        let offline = try await Mediaplay.runInProcess(arguments)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(try Self.titles(offline.stdout) == ["one", "two"])
        let notices = offline.stderr.split(separator: "\n")
        #expect(notices.count == 1 && notices[0].hasPrefix("mediaplay: offline: showing the feed as of 20") && notices[0].contains("(could not reach 127.0.0.1: "), "\(offline.stderr)")
        // --refresh wants the server's copy: unreachable is an error.
        let refresh = try await Mediaplay.runInProcess(arguments + ["--refresh"])
        #expect(refresh.status == 69, "\(refresh.stderr)")

        // Back with a changed feed: a 200 with the new one, kept in turn.
        server.serve("/feed.json", bytes: Self.feedJSON(["one", "two", "three"]), etag: "\"v2\"", contentType: "application/json")
        server.comeBack()
        let changed = try await Mediaplay.runInProcess(arguments)
        #expect(changed.status == 0 && changed.stderr == "", "\(changed.stderr)")
        #expect(try Self.titles(changed.stdout) == ["one", "two", "three"])
        server.goAway()
        let keptNew = try await Mediaplay.runInProcess(arguments)
        #expect(try Self.titles(keptNew.stdout) == ["one", "two", "three"], "the new copy replaced the old")
    }

    @Test func aFeedNeverFetchedAndUnreachableExits69() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        server.goAway()
        let result = try await Mediaplay.runInProcess(["list", "--feed", server.url("/feed.json").absoluteString, "--cache-dir", folder.path + "/cache"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("mediaplay: cannot fetch feed "), "\(result.stderr)")
    }

    /// The well-known facts-feed shape, with its nulls.
    @Test func theFactsFeedShapeLists() async throws {
        let folder = try TemporaryDirectory()
        let feed = try folder.write("facts.json", """
            {"title": "About Canada", "rows": [
              {"title": "Beavers", "description": "Beavers are second only to humans.", "imageHref": "http://example.org/beaver.jpg"},
              {"title": "Flag", "description": null, "imageHref": "http://example.org/flag.png"},
              {"title": "Transportation", "description": "Polar bears, mostly.", "imageHref": null},
              {"title": null, "description": null, "imageHref": null},
              {"title": null, "description": "Only words here.", "imageHref": null}
            ]}
            """)
        let result = try await Mediaplay.runInProcess(["list", "--json", "--feed", feed])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        #expect(document.feed.title == "About Canada")
        #expect(document.items.map(\.title) == ["Beavers", "Flag", "Transportation", "Untitled 4"])
        #expect(document.items.map(\.position) == [1, 2, 3, 4])
        #expect(document.items.map(\.kind) == ["image", "image", "image", "image"])
        #expect(document.items.map(\.state) == ["not-downloaded", "not-downloaded", "text-only", "text-only"])
        #expect(document.items[1].description == nil && document.items[0].url == "http://example.org/beaver.jpg")
        #expect(result.stderr == "mediaplay: note: row 4 at line 5 has no title, description or image; skipped\n")
        let play = try await Mediaplay.runInProcess(["play", "3", "--feed", feed])
        #expect(play.status == 65 && play.stderr.contains("text only"), "\(play.stderr)")
    }

    @Test func durationsAndTagsComeFromTheFiles() async throws {
        let path = try await Fixtures.make("tagged.mp3", ["-f", "lavfi", "-i", "sine=duration=3", "-metadata", "title=Song Title",
                                                          "-metadata", "artist=The Artist", "-metadata", "album=An Album", "-c:a", "libmp3lame"])
        let server = try TestHTTPServer()
        server.serve("/tagged.mp3", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.json", """
            [{"type": 1, "title": "Local", "url": "\(path)"},
             {"type": 1, "title": "Remote", "url": "\(server.url("/tagged.mp3").absoluteString)"}]
            """)
        let arguments = ["--feed", feed, "--cache-dir", folder.path + "/cache"]
        let before = try JSONDecoder().decode(ListJSON.self, from: Data(try await Mediaplay.runInProcess(["list", "--json"] + arguments).stdout.utf8))
        #expect(before.items[0].media?.artist == "The Artist")
        #expect(before.items[1].media == nil, "not cached: not probed")
        #expect(try await Mediaplay.runInProcess(["fetch", "2"] + arguments).status == 0)
        let after = try JSONDecoder().decode(ListJSON.self, from: Data(try await Mediaplay.runInProcess(["list", "--json"] + arguments).stdout.utf8))
        for item in after.items {
            let media = try #require(item.media, "\(item.title) probed")
            #expect(media.title == "Song Title" && media.artist == "The Artist" && media.album == "An Album")
            #expect(media.codec == "mp3" && media.sampleRate == 44100 && media.width == nil)
            #expect(abs((media.duration ?? 0) - 3) < 0.1, "\(media.duration ?? -1)")
        }
        let table = try await Mediaplay.runInProcess(["list"] + arguments, environment: ["COLUMNS": "100"])
        #expect(table.stdout.contains("DURATION") && table.stdout.contains("00:03"), "\(table.stdout)")
        // Kept: removing the cached entry forgets them with it.
        #expect(try await Mediaplay.runInProcess(["cache", "remove", "2"] + arguments).status == 0)
        let removed = try JSONDecoder().decode(ListJSON.self, from: Data(try await Mediaplay.runInProcess(["list", "--json"] + arguments).stdout.utf8))
        #expect(removed.items[1].media == nil && removed.items[1].state == "not-downloaded")
    }

    /// `list` of a local feed whose files are all probed runs in `mediaplay`
    /// itself, without mediaplay-core (so without FFmpeg, SDL or libcurl
    /// loaded), and prints byte for byte what mediaplay-core prints. A list
    /// that needs a probe, or a remote feed, is mediaplay-core's.
    @Test func aQuickListPrintsWhatTheFullOnePrints() async throws {
        let tone = try await Fixtures.make("tagged.mp3", ["-f", "lavfi", "-i", "sine=duration=3", "-metadata", "title=Song Title",
                                                          "-metadata", "artist=The Artist", "-metadata", "album=An Album", "-c:a", "libmp3lame"])
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.json", """
            {"title": "Mixed", "items": [
             {"type": 1, "title": "Tone \\u001b[2J", "url": "\(tone)"},
             {"type": 2, "title": "Gone", "url": "\(folder.path)/gone.mp4"},
             {"type": 1, "title": "Not media", "url": "\(try folder.write("notes.mp3", "just words"))"},
             {"type": 0, "title": "Remote", "url": "https://example.org/a.png", "thumbnail": "https://example.org/t.png"},
             {"type": 7, "title": "Odd"},
             {"title": "No type", "url": "https://example.org/b.mp3"}]}
            """)
        let arguments = ["--feed", feed, "--cache-dir", folder.path + "/cache"]
        // The first list probes the tone (mediaplay-core) and keeps its details.
        let first = try await Mediaplay.run(["list", "--json"] + arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("The Artist"))

        // mediaplay with no mediaplay-core beside it: the quick path or nothing.
        let alone = try TemporaryDirectory()
        let thin = alone.path + "/mediaplay"
        let built = (Mediaplay.executable as NSString).deletingLastPathComponent
        try FileManager.default.copyItem(atPath: Mediaplay.executable, toPath: thin)
        let core = built + "/mediaplay-core"
        for extra in [["--json"], []] {
            let environment = ["COLUMNS": "100"]
            let quick = try await Mediaplay.start(["list"] + extra + arguments, environment: environment, executable: thin).wait()
            let full = try await Mediaplay.start(["list"] + extra + arguments, environment: environment, executable: core).wait()
            #expect(quick.status == 0, "\(quick.stderr)")
            #expect(quick.stdout == full.stdout, "quick:\n\(quick.stdout)\nfull:\n\(full.stdout)")
            #expect(quick.stderr == full.stderr)
        }
        // A file that does not probe was kept as saying nothing (the list above stayed quick).
        // A file to probe (the tone touched) needs mediaplay-core: missing here, it says so.
        let touched = try folder.write("feed2.json", #"[{"type": 1, "title": "Tone", "url": "\#(tone)"}]"#)
        utime(tone, nil)
        let needsProbe = try await Mediaplay.start(["list", "--feed", touched, "--cache-dir", folder.path + "/cache"], executable: thin).wait()
        #expect(needsProbe.status == 69 && needsProbe.stderr.contains("mediaplay-core is missing"), "\(needsProbe.stderr)")
    }

    /// A list that cannot be written says so and fails (it went on writing
    /// the next pieces, leaving broken JSON and exit 0); a closed pipe is quiet.
    @Test func aListThatCannotBeWrittenFails() async throws {
        let folder = try TemporaryDirectory()
        let items = (1...3000).map { #"{"type": 0, "title": "Picture \#($0)", "url": "https://example.org/\#($0).png"}"# }
        let feed = try folder.write("feed.json", "[" + items.joined(separator: ",") + "]")
        let errors = folder.path + "/stderr.txt"
        let environment = ["HOME": folder.path, "XDG_CACHE_HOME": folder.path + "/cache", "XDG_RUNTIME_DIR": folder.path + "/run", "PATH": "/usr/bin:/bin"]
        for executable in [Mediaplay.executable, (Mediaplay.executable as NSString).deletingLastPathComponent + "/mediaplay-core"] {
            let child = try ChildProcess(executable, ["list", "--json", "--feed", feed], environment: environment, stdout: "/dev/full", stderr: errors)
            let status = ChildProcess.code(await offPool { child.waitUntilExit() })
            let said = try String(contentsOfFile: errors, encoding: .utf8)
            #expect(status == 74 && said == "mediaplay: cannot write the list: No space left on device\n", "\(executable): \(status) \(said)")
        }
    }

    @Test func theCacheByItem() async throws {
        let server = try TestHTTPServer()
        server.serve("/a.mp3", bytes: TestHTTPServer.bytes(count: 50_000, seed: 1))
        server.serve("/b.mp3", bytes: TestHTTPServer.bytes(count: 60_000, seed: 2))
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.json", """
            [{"type": 1, "title": "First", "url": "\(server.url("/a.mp3").absoluteString)"},
             {"type": 1, "id": "second", "title": "Second", "url": "\(server.url("/b.mp3").absoluteString)"}]
            """)
        let arguments = ["--feed", feed, "--cache-dir", folder.path + "/cache"]
        #expect(try await Mediaplay.runInProcess(["fetch", "--all"] + arguments).status == 0)
        // An interrupted download that got nothing leaves an empty part: cleaned, not listed.
        let entries = folder.path + "/cache/entries"
        try Data().write(to: URL(fileURLWithPath: entries + "/0000-empty.mp3.part"))

        let listed = try await Mediaplay.runInProcess(["cache", "list"] + arguments, environment: ["COLUMNS": "100"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.first?.contains("#") == true && lines.first?.contains("TITLE") == true && lines.first?.contains("LAST USED") == true, "\(listed.stdout)")
        #expect(lines.contains { $0.contains("1") && $0.contains("First") && $0.contains("cached") }, "\(listed.stdout)")
        #expect(lines.contains { $0.contains("2") && $0.contains("Second") && $0.contains("cached") }, "\(listed.stdout)")
        let json = try await Mediaplay.runInProcess(["cache", "list", "--json"] + arguments)
        #expect(json.stdout.contains(#""item":2"#) && json.stdout.contains(#""title":"Second""#), "\(json.stdout)")

        let removed = try await Mediaplay.runInProcess(["cache", "remove", "second"] + arguments)
        #expect(removed.status == 0 && removed.stdout.hasPrefix("2 \"Second\": removed, "), "\(removed.stdout)\(removed.stderr)")
        let again = try await Mediaplay.runInProcess(["cache", "remove", "2"] + arguments)
        #expect(again.stdout == "2 \"Second\": not in the cache\n")
        let list = try JSONDecoder().decode(ListJSON.self, from: Data(try await Mediaplay.runInProcess(["list", "--json"] + arguments).stdout.utf8))
        #expect(list.items.map(\.state) == ["cached", "not-downloaded"])
        let missing = try await Mediaplay.runInProcess(["cache", "remove", "9"] + arguments)
        #expect(missing.status == 66, "\(missing.stderr)")
    }
}
