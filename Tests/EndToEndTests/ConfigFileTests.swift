import Foundation
import Testing
import InProcessRunner
import TestKit

/// config.toml: its defaults and keys apply, `mediaplay config` says where
/// each came from, and a mistake stops every command with its position.
@Suite struct ConfigFileTests {
    final class Home: UserHome, @unchecked Sendable {
        override var environment: [String: String] {
            super.environment.merging(["XDG_CONFIG_HOME": folder.path + "/config"]) { $1 }
        }

        func writeConfig(_ text: String) throws {
            try FileManager.default.createDirectory(atPath: folder.path + "/config/mediaplay", withIntermediateDirectories: true)
            try text.write(toFile: folder.path + "/config/mediaplay/config.toml", atomically: true, encoding: .utf8)
        }
    }

    static func home() async throws -> Home {
        let tone = try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
        let home = try await Home()
        home.feed = try home.folder.write("feed.json", #"[{"type": 1, "title": "Tone", "url": "file://\#(tone)"}]"#)
        return home
    }

    @Test func aMistakeIsExit78WithItsLineAndColumn() async throws {
        let home = try await Self.home()
        try home.writeConfig("[playback]\nvolume = 80\n  volum = 3\n")
        for command in [["list"], ["toggle", "1"], ["fetch", "1"], ["play", "1"]] {
            let result = try await Mediaplay.runInProcess(command, environment: home.environment)
            #expect(result.status == 78, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix(#"mediaplay: config.toml:3:3: unknown key "volum" in [playback] (did you mean "volume"?)"#), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    /// A mistake in the file never locks anyone out of a running player:
    /// status, stop, quit, config and --help say the mistake in one line
    /// (the file, the line, the key) and work; the commands the file
    /// changes still stop with 78.
    @Test func aMistakeLocksNoOneOut() async throws {
        let home = try await Self.home()
        #expect(try await home.runInProcess("toggle", "1").status == 0)
        defer { Task { _ = try? await home.runInProcess("quit") } }
        try home.writeConfig("[playback]\nvolum = 60\n")
        let warning = #"mediaplay: config.toml:2:1: unknown key "volum" in [playback] (did you mean "volume"?)"#
        for command in [["status"], ["status", "--runtime-dir", home.folder.path + "/run/mediaplay"], ["config"], ["--help"], ["play", "--help"], ["stop"]] {
            let result = try await Mediaplay.runInProcess(command, environment: home.environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix(warning) && result.stderr.split(separator: "\n").count == 1, "\(command): one line naming the file, line and key: \(result.stderr)")
        }
        #expect(try await home.runInProcess("toggle", "1").status == 78, "what the file changes still stops")
        let quit = try await home.runInProcess("quit")
        #expect(quit.status == 0 && quit.stderr.hasPrefix(warning), "\(quit.stderr)")
        #expect(try await home.runInProcess("status").status == 69, "it quit")
    }

    /// `mediaplay config` prints the settings' names whole, at any width:
    /// they are what one types into config.toml.
    @Test func configNeverCutsANameShort() async throws {
        let home = try await Self.home()
        let result = try await Mediaplay.runInProcess(["config"], environment: home.environment.merging(["COLUMNS": "40"]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["replaygain-preamp", "measure-loudness", "loudness-target", "replaygain-clip"] {
            #expect(result.stdout.contains("  \(name) "), "\(name): \(result.stdout)")
        }
    }

    @Test func configShowsEachValueWithItsSource() async throws {
        let home = try await Self.home()
        try home.writeConfig("[playback]\nvolume = 80\n[keys]\nx = \"seek +20\"\n\"ctrl+right\" = \"seek +60\"\nm = \"\"\n")
        let result = try await Mediaplay.runInProcess(["config", "--json"], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let settings = document["settings"] as? [[String: String]] ?? []
        #expect(settings.contains { $0["key"] == "volume" && $0["value"] == "80" && $0["source"] == "config.toml" })
        #expect(settings.contains { $0["key"] == "speed" && $0["source"] == "default" })
        #expect(settings.contains { $0["key"] == "default" && $0["source"] == "environment (MEDIAPLAY_FEED)" })
        let keys = document["keys"] as? [[String: String]] ?? []
        #expect(keys.contains { $0["key"] == "x" && $0["command"] == "seek +20" && $0["source"] == "config.toml" })
        #expect(keys.contains { $0["key"] == "ctrl+right" && $0["command"] == "seek +60" })
        #expect(keys.contains { $0["key"] == "m" && $0["command"] == "" && $0["source"] == "config.toml" }, "unbound")
        #expect(keys.contains { $0["key"] == "space" && $0["command"] == "toggle" && $0["source"] == "default" })
        let text = try await Mediaplay.runInProcess(["config"], environment: home.environment)
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("  volume ") && $0.contains(" 80 ") && $0.hasSuffix(" config.toml") }, "\(text.stdout)")
    }

    /// The daemon starts with the file's defaults when nothing was kept.
    @Test func theBackgroundPlayerStartsWithTheFilesDefaults() async throws {
        let home = try await Self.home()
        try home.writeConfig("[playback]\nvolume = 70\nrepeat = \"all\"\n")
        #expect(try await home.runInProcess("toggle", "1").status == 0)
        #expect(try await home.runInProcess("volume").stdout == "🔊 volume 70 %\n")
        #expect(try await home.runInProcess("repeat").stdout.contains("repeat all"))
        _ = try await home.runInProcess("quit")
    }

    /// A key bound in the file works in browse.
    @Test func aBoundKeyWorksInBrowse() async throws {
        let home = try await Self.home()
        try home.writeConfig("[keys]\nx = \"volume 42\"\n")
        let session = try await TerminalSession(columns: 80, rows: 24, [Mediaplay.executable, "browse", "--images", "blocks"], environment: home.environment)
        #expect(await session.shows { $0.joined().contains("Tone") })
        await session.send("x")
        let said = await session.waitForScreen { $0.last?.contains("volume 42 %") == true }
        #expect(said.matched, "\(said.screen.joined(separator: "\n"))")
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
    }

    /// Named feeds: `--feed NAME`, `mediaplay feeds` with counts, and a
    /// podcast client's OPML added to feeds.toml, config.toml left as it was.
    @Test func namedFeedsAndAnOPMLImport() async throws {
        let home = try await Self.home()
        try home.writeConfig("# my settings\n[playback]\nvolume = 80\n")
        let server = try TestHTTPServer()
        for (path, title) in [("/pod.xml", "Pod"), ("/tones.xml", "Tones")] {
            server.serve(path, bytes: Array(#"<rss version="2.0"><channel><title>\#(title)</title><item><title>A</title><enclosure url="https://e.org/a.mp3" type="audio/mpeg"/></item></channel></rss>"#.utf8))
        }
        let podcast = server.url("/pod.xml").absoluteString
        let opml = try home.folder.write("subs.opml", """
            <?xml version="1.0"?>
            <opml version="2.0"><body>
              <outline text="Folder"><outline type="rss" text="My Pod!" xmlUrl="\(podcast)"/></outline>
              <outline type="rss" text="Tones" xmlUrl="\(server.url("/tones.xml").absoluteString)"/>
            </body></opml>
            """)
        let imported = try await Mediaplay.runInProcess(["feeds", "import", opml], environment: home.environment)
        #expect(imported.status == 0 && imported.stdout.contains("Added 2 feeds") && imported.stdout.contains("my-pod, tones"), "\(imported.stdout) \(imported.stderr)")
        let config = try String(contentsOfFile: home.folder.path + "/config/mediaplay/config.toml", encoding: .utf8)
        #expect(config == "# my settings\n[playback]\nvolume = 80\n", "\(config)")
        let text = try String(contentsOfFile: home.folder.path + "/config/mediaplay/feeds.toml", encoding: .utf8)
        #expect(text.contains("\nmy-pod = \"\(podcast)\"\n"), "\(text)")
        let again = try await Mediaplay.runInProcess(["feeds", "import", opml], environment: home.environment)
        #expect(again.status == 0 && again.stdout.contains("named already"), "\(again.stdout)")

        let list = try await Mediaplay.runInProcess(["list", "--feed", "my-pod"], environment: home.environment)
        #expect(list.status == 0 && list.stdout.hasPrefix("Pod · 1 item"), "\(list.stdout) \(list.stderr)")
        let feeds = try await Mediaplay.runInProcess(["feeds", "--json"], environment: home.environment)
        let rows = feeds.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(rows.map { $0["name"] as? String } == ["my-pod", "tones"] && rows.map { $0["items"] as? Int } == [1, 1], "\(feeds.stdout)")
        let typo = try await Mediaplay.runInProcess(["list", "--feed", "my-pdo"], environment: home.environment)
        #expect(typo.status == 66 && typo.stderr.contains(#"did you mean "my-pod"?"#), "\(typo.stderr)")

        try home.writeConfig("[feeds]\n\"12\" = \"x.xml\"\n")
        let bad = try await Mediaplay.runInProcess(["list"], environment: home.environment)
        #expect(bad.status == 78 && bad.stderr.contains("config.toml:2:1:") && bad.stderr.contains("not a usable feed name"), "\(bad.stderr)")
    }
}
