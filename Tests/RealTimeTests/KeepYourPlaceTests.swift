import Foundation
import Testing
import TestKit

/// Every player keeps the user's place (issue 43), and `play` says what
/// each key changed for a moment. Real time: a place is where playback
/// stood when a command or a signal came, and a key's message shows for
/// two seconds, which a busy machine's slow start would miss.
@Suite(.serialized) struct KeepYourPlaceTests {
    /// `play` keeps the user's place as the background player does: it
    /// resumes where an item was left (saying from where), keeps where it
    /// stops, and marks one played to its end; `--start` wins, and takes M:SS.
    @Test func playResumesKeepsItsPlaceAndMarksPlayed() async throws {
        // A minute: long enough that a signal lands before its end on the busiest machine.
        let tone = try await Fixtures.make("minute.wav", ["-f", "lavfi", "-i", "sine=duration=60", "-c:a", "pcm_s16le"])
        let short = try await Fixtures.make("tone-half.wav", ["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "pcm_s16le"])
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", """
            [{"type": 1, "title": "Long", "url": "file://\(tone)"}, {"type": 1, "title": "Short", "url": "file://\(short)"}]
            """)
        var environment = home.environment
        environment["SDL_AUDIODRIVER"] = "dummy"
        // Stopped (Ctrl-C) where --start put it: that place is kept.
        let first = try Mediaplay.start(["play", "1", "--start", "0:05"], environment: environment)
        try await first.waitForStderr(containing: "playing")
        first.kill(SIGINT)
        let stopped = try await first.wait()
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(stopped.stderr.hasPrefix("playing \"Long\" from 00:05\n"), "\(stopped.stderr)")
        let listed = try JSONDecoder().decode(ListJSON.self, from: Data(try await Mediaplay.run(["list", "--json"], environment: environment).stdout.utf8))
        let kept = try #require(listed.items[0].resumeAt, "list --json says where it was left")
        #expect(kept >= 5 && kept < 55, "\(kept)")
        let table = try await Mediaplay.run(["list", "--columns", "title,position"], environment: environment)
        #expect(table.stdout.contains("Long      \(String(format: "00:%02d", Int(kept)))"), "the POSITION column: \(table.stdout)")
        // The next play resumes there.
        let again = try Mediaplay.start(["play", "1"], environment: environment)
        try await again.waitForStderr(containing: "playing")
        again.kill(SIGINT)
        let resumed = try await again.wait()
        #expect(resumed.stderr.hasPrefix("playing \"Long\" from \(String(format: "00:%02d", Int(kept)))\n"), "where it was left: \(resumed.stderr)")
        // Played to its end: marked played (✓), nothing kept to resume.
        let whole = try await Mediaplay.run(["play", "2"], environment: environment)
        #expect(whole.status == 0 && whole.stderr == "playing \"Short\"\nended \"Short\"\n", "\(whole.stderr)")
        let after = try JSONDecoder().decode(ListJSON.self, from: Data(try await Mediaplay.run(["list", "--json"], environment: environment).stdout.utf8))
        #expect(after.items[1].played == true && after.items[1].resumeAt == nil)
    }

    /// The background player keeps the place across `next` and `prev`:
    /// `toggle 1; seek 0:03; next; prev` plays item 1 from 0:03 again, and
    /// the place kept is 0:03, not 0.
    @Test func nextAndPrevResumeWhereTheItemWasLeft() async throws {
        // A minute each: none may end while the test steps.
        let tone = try await Fixtures.make("minute.wav", ["-f", "lavfi", "-i", "sine=duration=60", "-c:a", "pcm_s16le"])
        let other = try await Fixtures.make("minute-660.wav", ["-f", "lavfi", "-i", "sine=frequency=660:duration=60", "-c:a", "pcm_s16le"])
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", """
            [{"type": 1, "title": "One", "url": "file://\(tone)"}, {"type": 1, "title": "Two", "url": "file://\(other)"}]
            """)
        defer { Task { _ = try? await home.run("quit") } }
        #expect(try await home.run("toggle", "1").status == 0)
        let sought = try await home.run("seek", "0:03")
        #expect(sought.stdout.hasPrefix("▶ playing 1 \"One\" 00:03/01:00"), "\(sought.stdout)\(sought.stderr)")
        let next = try await home.run("next")
        #expect(next.stdout.hasPrefix("▶ playing 2 \"Two\" 00:0"), "\(next.stdout)\(next.stderr)")
        let back = try await home.run("prev")
        // Where it was left: 0:03, or past it by what it played until `next` stopped it.
        let seconds = back.stdout.split(separator: " ").dropFirst(4).first.flatMap { Int($0.prefix(5).suffix(2)) } ?? 0
        #expect(back.stdout.hasPrefix("▶ playing 1 \"One\" 00:") && seconds >= 3, "resumed where it was left: \(back.stdout)")
        _ = try await home.run("quit")
        let listed = try JSONDecoder().decode(ListJSON.self, from: Data(try await home.run("list", "--json").stdout.utf8))
        #expect((listed.items[0].resumeAt ?? 0) >= 3, "kept, not overwritten with 0: \(String(describing: listed.items[0].resumeAt))")
    }

    /// A short item paused once it was decoded to its end (the device
    /// playing out what it holds) and then stopped is kept where it was
    /// paused: it was taken to stand at its end, marked played, and its
    /// place forgotten.
    @Test func aPauseDuringThePlayOutIsWhereItIsKept() async throws {
        let world = try await ToneFeedHome()
        #expect(try await world.run("toggle", "1").status == 0)
        let second = try await world.waitForPlayer { PlayerObserver.isPlaying($0, past: 1) }
        #expect(second != nil)
        let paused = try await world.run("toggle", "1")
        #expect(paused.stdout.hasPrefix("⏸ paused 1"), "\(paused.stdout)")
        #expect(try await world.run("quit").status == 0)
        let listed = try JSONDecoder().decode(ListJSON.self, from: Data(try await world.run("list", "--json").stdout.utf8))
        #expect(listed.items[0].played == false, "paused at a second of two: not played")
        let kept = listed.items[0].resumeAt ?? 0
        #expect(kept >= 1 && kept < 1.98, "kept where it was paused: \(kept)")
    }

    /// `play` says what each key changed, for a moment (mpv's OSD
    /// messages), and its status line says where the item is in the list.
    @Test func aKeysChangeShowsOnTheStatusLineForAMoment() async throws {
        let folder = try TemporaryDirectory()
        let tone = try await Fixtures.make("minute.wav", ["-f", "lavfi", "-i", "sine=duration=60", "-c:a", "pcm_s16le"])
        let feed = try folder.write("feed.json", """
            [{"type": 1, "title": "Tone 1", "url": "file://\(tone)"}, {"type": 1, "title": "Tone 2", "url": "file://\(tone)"}]
            """)
        let environment = ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null", "MEDIAPLAY_FEED": feed, "XDG_CACHE_HOME": folder.path + "/cache"]
        let session = try await TerminalSession(columns: 120, rows: 10, [Mediaplay.executable, "play", "1", "--no-video"], environment: environment)
        #expect(await session.shows { $0.joined().contains("1/2 Tone 1") }, "its place in the list")
        await session.send("9")
        let volume = await session.waitForScreen { $0.joined().contains("Volume 95 %") }
        #expect(volume.matched, "\(volume.screen.joined(separator: "\n"))")
        // No subtitles to step to: why, in place of the keys.
        await session.send("j")
        let refused = await session.waitForScreen { $0.joined().contains("the current item has no subtitles") }
        #expect(refused.matched, "\(refused.screen.joined(separator: "\n"))")
        // About two seconds on, the message goes and the keys come back.
        let gone = await session.waitForScreen { $0.joined().contains("q quit") && !$0.joined().contains("no subtitles") }
        #expect(gone.matched, "\(gone.screen.joined(separator: "\n"))")
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
    }
}
