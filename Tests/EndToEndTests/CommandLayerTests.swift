import Foundation
import Testing
import InProcessRunner
import TestKit

/// What the one command layer fixed, through the real programs: the item a
/// number names is the one `list` shows, `--no-wait` tells the truth,
/// `status --follow` prints each change once, and a mistyped command is named.
@Suite(.serialized) struct CommandLayerTests {
    final class TwoTones: UserHome, @unchecked Sendable {
        let high: String
        let low: String

        override init() async throws {
            // Long enough to outlast every step (a device ring holds a second and a half).
            high = try await Fixtures.make("tone-30s.wav", ["-f", "lavfi", "-i", "sine=duration=30", "-c:a", "pcm_s16le"])
            low = try await Fixtures.make("tone.flac", Fixtures.audioCodecs.first { $0.name == "tone.flac" }!.arguments)
            try await super.init()
            feed = try folder.write("feed.json", Self.feed([("High tone", high), ("Low tone", low)]))
        }

        static func feed(_ items: [(String, String)]) -> String {
            "[" + items.map { #"{"type": 1, "title": "\#($0.0)", "url": "file://\#($0.1)"}"# }.joined(separator: ",\n") + "]"
        }
    }

    @Test func afterTheFeedChangesANumberPlaysWhatListShows() async throws {
        let world = try await TwoTones()
        // Low tone lasts 2 s: on a busy machine it could end and play on
        // into High tone before the status below.
        _ = try await world.runInProcess("autoplay", "off")
        let first = try await world.runInProcess("toggle", "1")
        #expect(first.stdout.hasPrefix("▶ playing 1 \"High tone\""), "\(first.stdout)\(first.stderr)")
        // The user reorders the feed while the player runs.
        try Data(TwoTones.feed([("Low tone", world.low), ("High tone", world.high)]).utf8).write(to: URL(fileURLWithPath: world.feed))
        let listed = try await world.runInProcess("list")
        #expect(listed.stdout.contains("Low tone"), "\(listed.stdout)")
        let second = try await world.runInProcess("toggle", "1")
        // It used to pause "High tone", the player's old item 1.
        #expect(second.stdout.hasPrefix("▶ playing 1 \"Low tone\""), "\(second.stdout)\(second.stderr)")
        let status = try await world.runInProcess("status")
        #expect(status.stdout.contains("⏸ paused 2 \"High tone\""), "what played follows its item to its new number: \(status.stdout)")
        _ = try await world.runInProcess("quit")
    }

    /// A video toggled in a background player with no display plays its
    /// sound, and toggle says so, with how to watch it; `status` says why.
    @Test func aVideoWithoutADisplaySaysHowToWatchIt() async throws {
        let world = try await TwoTones()
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        world.feed = try world.folder.write("feed.json", #"[{"type": 2, "title": "Clip", "url": "file://\#(clip)"}]"#)
        let toggled = try await world.runInProcess("toggle", "1")
        #expect(toggled.stdout.hasPrefix("▶ playing 1 \"Clip\""), "\(toggled.stdout)\(toggled.stderr)")
        #expect(toggled.stderr.contains("shows no pictures: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); it plays the sound (to watch here: mediaplay play 1)"), "\(toggled.stderr)")
        let status = try JSONSerialization.jsonObject(with: Data(try await world.runInProcess("status", "--json").stdout.utf8)) as? [String: Any]
        #expect((status?["display"] as? String)?.hasPrefix("no display") == true)
        _ = try await world.runInProcess("quit")

        // With a display (SDL's dummy driver, asked for), nothing is said.
        var withDisplay = world.environment
        withDisplay["SDL_VIDEODRIVER"] = "dummy"
        let shown = try await Mediaplay.runInProcess(["toggle", "1"], environment: withDisplay)
        #expect(shown.status == 0 && !shown.stderr.contains("no pictures"), "\(shown.stderr)")
        _ = try await Mediaplay.runInProcess(["quit"], environment: withDisplay)
    }

    @Test func statusShowsTheFilesTagsAndFormat() async throws {
        let world = try await TwoTones()
        let tagged = try await Fixtures.make("tagged.mp3", ["-f", "lavfi", "-i", "sine=duration=3", "-metadata", "title=Song Title",
                                                            "-metadata", "artist=The Artist", "-metadata", "album=An Album", "-c:a", "libmp3lame"])
        world.feed = try world.folder.write("feed.json", #"[{"type": 1, "title": "Tagged", "url": "file://\#(tagged)"}]"#)
        _ = try await world.runInProcess("autoplay", "off")
        let toggled = try await world.runInProcess("toggle", "1")
        #expect(toggled.stdout.hasPrefix("▶ playing 1 \"Tagged\""), "\(toggled.stdout)\(toggled.stderr)")
        _ = try await world.runInProcess("toggle", "1")  // paused: it stays current
        let status = try await world.runInProcess("status")
        #expect(status.stdout.contains("  0:03 · \"Song Title\" — The Artist — An Album · mp3 · 44100 Hz"), "\(status.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(try await world.runInProcess("status", "--json").stdout.utf8)) as? [String: Any]
        let media = json?["media"] as? [String: Any]
        #expect(media?["artist"] as? String == "The Artist" && media?["album"] as? String == "An Album", "\(json ?? [:])")
        _ = try await world.runInProcess("quit")
    }
    @Test func noWaitReportsTheRealStateAndTheRealError() async throws {
        let world = try await TwoTones()
        world.feed = try world.folder.write("feed.json", TwoTones.feed([("Gone", world.folder.path + "/gone.wav"), ("High tone", world.high)]))
        let missing = try await world.runInProcess("toggle", "--no-wait", "1")
        // It used to answer "⤓ downloading" and exit 0.
        #expect(missing.status == 66, "\(missing.stdout)\(missing.stderr)")
        #expect(missing.stderr.contains("no readable file at \(world.folder.path)/gone.wav"), "\(missing.stderr)")
        let local = try await world.runInProcess("toggle", "--no-wait", "2")
        #expect(local.status == 0 && local.stdout.hasPrefix("▶ playing 2 \"High tone\""), "\(local.stdout)\(local.stderr)")
        _ = try await world.runInProcess("quit")
    }

    /// A picture's download is under way: `--no-wait` answers at once, with
    /// that state, and the download goes on without the client.
    @Test func noWaitAnswersWhileAPictureDownloads() async throws {
        let world = try await TwoTones()
        let picture = try await Fixtures.make(Fixtures.images[0].name, Fixtures.images[0].arguments)
        let server = try TestHTTPServer()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: picture)))
        server.serve("/picture.png", bytes: bytes)
        server.inject("/picture.png", [.holdAfter(bytes.count / 2)])
        world.feed = try world.folder.write("feed.json", #"[{"type": 0, "title": "Held picture", "url": "\#(server.url("/picture.png").absoluteString)"}]"#)
        let answered = try await world.runInProcess("toggle", "--no-wait", "1")
        #expect(answered.status == 0 && answered.stdout.hasPrefix("⤓ downloading 1 \"Held picture\""), "\(answered.stdout)\(answered.stderr)")
        let status = try await world.runInProcess("status")
        #expect(status.stdout.contains("downloading 1 \"Held picture\""), "\(status.stdout)")
        server.release("/picture.png")
        _ = try await world.runInProcess("quit")
    }

    @Test func statusFollowPrintsEachChangeOnceAndThePositionMoving() async throws {
        let world = try await TwoTones()
        _ = try await world.run("toggle", "1")
        let follow = try Mediaplay.start(["status", "--follow"], environment: world.environment)
        // Two lines of it playing (a line a second), then paused, then its line.
        try await follow.waitForStdout { $0.split(separator: "\n").filter { $0.hasPrefix("▶ playing 1") }.count >= 2 }
        _ = try await world.run("toggle", "1")
        try await follow.waitForStdout { $0.contains("⏸ paused 1 \"High tone\"") }
        follow.kill(SIGTERM)
        let lines = try await follow.wait().stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("▶ playing 1 \"High tone\"") == true, "\(lines)")
        // The first line came twice: the summary, then the first event read as a change.
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 }, "a line repeated: \(lines)")
        let playing = lines.filter { $0.hasPrefix("▶ playing 1") }
        #expect(playing.count >= 2, "the position moves, a line a second: \(lines)")
        #expect(lines.last?.hasPrefix("⏸ paused 1 \"High tone\"") == true, "\(lines)")
        _ = try await world.run("quit")
    }

    @Test func volumeAndMuteAreCommandsKeptAcrossRestarts() async throws {
        let world = try await TwoTones()
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("volume").stdout == "🔊 volume 100 %\n")
        #expect(try await world.runInProcess("volume", "60").stdout == "🔊 volume 60 %\n")
        #expect(try await world.runInProcess("volume", "-10").stdout == "🔊 volume 50 %\n")
        #expect(try await world.runInProcess("mute").stdout == "🔇 muted (volume 50 %)\n")
        #expect(try await world.runInProcess("mute", "--json").stdout == "{\"loudness\":\"on\",\"muted\":false,\"replayGain\":\"auto\",\"speed\":1,\"volume\":50}\n", "a second mute unmutes")
        let bad = try await world.runInProcess("volume", "200")
        #expect(bad.status == 64 && bad.stderr.contains("volume takes N (0–150)"), "\(bad.stderr)")
        // Silence reaches the device once the ring ahead of it has played
        // (256 KiB: 1.5 s of real time; SDL's disk driver plays slower).
        _ = try await world.runInProcess("volume", "0")
        // Looked at each time the device writes (its last quarter second only).
        var silent = false
        try await Wait.until(changesAt: world.folder.path, timeout: 8) {
            let size = Wait.size(of: world.disk)
            silent = size > 44100 && Self.tail(of: world.disk, size: size, count: 44100).allSatisfy { $0 == 0 }
            return silent
        }
        #expect(silent, "the device's last quarter second is silent")
        _ = try await world.runInProcess("quit")
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("volume").stdout == "🔊 volume 0 %\n", "kept for the next start")
        _ = try await world.runInProcess("quit")
    }

    /// The last `count` bytes of the file at `path`, `size` bytes long.
    static func tail(of path: String, size: Int, count: Int) -> [UInt8] {
        guard let file = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? file.close() }
        try? file.seek(toOffset: UInt64(max(0, size - count)))
        return [UInt8]((try? file.read(upToCount: count)) ?? Data())
    }

    @Test func seekMovesTheCurrentItem() async throws {
        let world = try await TwoTones()
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("seek", "10").stdout.hasPrefix("▶ playing 1 \"High tone\" 00:10/00:30"))
        #expect(try await world.runInProcess("seek", "+5").stdout.hasPrefix("▶ playing 1 \"High tone\" 00:15/00:30"))
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("seek", "-1:00").stdout == "⏸ paused 1 \"High tone\" at 00:00\n", "back past the start: the start")
        #expect(try await world.runInProcess("seek", "0:20").stdout == "⏸ paused 1 \"High tone\" at 00:20\n")
        let bad = try await world.runInProcess("seek", "1:75")
        #expect(bad.status == 64 && bad.stderr.contains("seek takes a time (90, 1:30), +N, -N or N%, after an item or alone, not \"1:75\""), "\(bad.stderr)")
        _ = try await world.runInProcess("quit")
    }

    @Test func speedIsACommandKeptAcrossRestarts() async throws {
        let world = try await TwoTones()
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("speed", "1.5").stdout == "🔊 volume 100 % · speed 1.5×\n")
        #expect(try await world.runInProcess("speed", "9").status == 64)
        let status = try await world.runInProcess("status", "--json")
        let audio = ((try JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any])?["audio"] as? [String: Any]
        #expect(audio?["speed"] as? Double == 1.5, "\(status.stdout)")
        _ = try await world.runInProcess("quit")
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("speed", "--json").stdout == "{\"loudness\":\"on\",\"muted\":false,\"replayGain\":\"auto\",\"speed\":1.5,\"volume\":100}\n", "kept for the next start")
        _ = try await world.runInProcess("quit")
    }

    @Test func thePlaylistFromTheCommandLine() async throws {
        let world = try await TwoTones()
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("next").stdout.hasPrefix("▶ playing 2 \"Low tone\""))
        let end = try await world.runInProcess("next")
        #expect(end.status == 66 && end.stderr.contains("no next item"), "\(end.stderr)")
        #expect(try await world.runInProcess("repeat", "all").stdout == "autoplay on · repeat all · shuffle off\n")
        #expect(try await world.runInProcess("next").stdout.hasPrefix("▶ playing 1 \"High tone\""), "round to the first")
        #expect(try await world.runInProcess("prev").stdout.hasPrefix("▶ playing 2 \"Low tone\""))
        #expect(try await world.runInProcess("autoplay", "off", "--json").stdout == "{\"autoplay\":false,\"repeat\":\"all\",\"shuffle\":false}\n")
        #expect(try await world.runInProcess("shuffle", "maybe").status == 64)
        _ = try await world.runInProcess("quit")
        _ = try await world.runInProcess("toggle", "1")
        #expect(try await world.runInProcess("repeat").stdout == "autoplay off · repeat all · shuffle off\n", "kept for the next start")
        _ = try await world.runInProcess("quit")
    }

    @Test func aMistypedCommandIsNamedWithTheNearestOne() async throws {
        let result = try await Mediaplay.runInProcess(["paly", "2"])
        #expect(result.status == 64)
        #expect(result.stderr == "mediaplay: unknown command \"paly\" (did you mean \"play\"?); see 'mediaplay --help' for the commands\n", "\(result.stderr)")
    }
}
