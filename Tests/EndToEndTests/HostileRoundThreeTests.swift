import Foundation
import Testing
import InProcessRunner
import TestKit

/// The third probe's inputs (hostile files, feeds, a stopped daemon, a
/// careless neighbour), through the built programs: none crashes, hangs,
/// loses a position or changes a folder mediaplay does not own.
@Suite struct HostileRoundThreeTests {
    /// The test tone, made once by ffmpeg.
    static func tone() async throws -> String {
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        return try await Fixtures.make(fixture.name, fixture.arguments)
    }

    /// A WAV header by hand: any channel count and rate, `frames` of silence.
    static func wav(channels: Int, rate: UInt32, frames: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        let data = channels * 2 * frames
        bytes += Array("RIFF".utf8); u32(UInt32(36 + data)); bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8); u32(16); u16(1); u16(UInt16(channels)); u32(rate)
        u32(rate &* UInt32(channels) &* 2); u16(UInt16(channels * 2)); u16(16)
        bytes += Array("data".utf8); u32(UInt32(data))
        bytes += [UInt8](repeating: 0, count: data)
        return bytes
    }

    /// 256 channels, a rate of 1 GHz, 8 Hz: a clear exit 65 naming the
    /// format, to a device and to a recording (they trapped, or hung 97 s).
    @Test(arguments: [(256, UInt32(44100), 16), (2, UInt32(1_000_000_000), 16), (1, UInt32(8), 64), (1, UInt32(1), 16)])
    func anUnsupportedAudioFormatIsExit65(_ format: (channels: Int, rate: UInt32, frames: Int)) async throws {
        let folder = try TemporaryDirectory()
        let file = folder.path + "/odd.wav"
        try Data(Self.wav(channels: format.channels, rate: format.rate, frames: format.frames)).write(to: URL(fileURLWithPath: file))
        let noun = format.channels == 1 ? "channel" : "channels"
        for recording in [false, true] {
            let output = recording ? ["--audio-out", folder.path + "/out.wav", "--untimed"] : []
            let result = try await Mediaplay.run(
                ["play", file, "--no-video"] + output,
                environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": folder.path + "/device.raw"]
            )
            #expect(result.status == 65 && !result.killedBySignal, "\(result.status) \(result.stderr)")
            #expect(result.stderr.contains("unsupported audio format: \(format.channels) \(noun) at \(format.rate) Hz"), "\(result.stderr)")
        }
    }

    /// The same file toggled in the background player: it fails that item
    /// and the player lives on.
    @Test func anUnsupportedFormatLeavesTheBackgroundPlayerAlive() async throws {
        let home = try await UserHome()
        let file = home.folder.path + "/odd.wav"
        try Data(Self.wav(channels: 256, rate: 44100, frames: 16)).write(to: URL(fileURLWithPath: file))
        home.feed = try home.folder.write("feed.json", #"[{"type": 1, "title": "Odd", "url": "file://\#(file)"}]"#)
        let toggled = try await home.runInProcess("toggle", "1")
        var said = toggled.stdout + toggled.stderr
        // The file opens; its first audio frame is refused (toggle may have
        // answered before): the item fails (the player says so), the player
        // answers on.
        if !said.contains("unsupported audio format") {
            _ = try await home.waitForPlayer { ($0["error"] as? String)?.contains("unsupported audio format") == true }
            let status = try await home.runInProcess("status")
            #expect(status.status == 0, "\(status.stderr)")
            said = status.stdout
        }
        #expect(said.contains("unsupported audio format: 256 channels at 44100 Hz"), "\(said)")
        #expect(try await home.runInProcess("status").status == 0, "the background player lives on")
        _ = try await home.runInProcess("quit")
    }

    /// A failed write to stderr (full, closed) is no crash: the playback's
    /// exit status stands; with stderr closed, `quit` writes nothing into
    /// the socket (it got descriptor 2).
    @Test func aFullOrClosedStderrIsNoCrash() async throws {
        let tone = try await Self.tone()
        let home = try await UserHome.withFeed(playing: tone)
        var environment = home.environment
        environment["PATH"] = "/usr/bin:/bin"
        environment["HOME"] = home.folder.path
        let play = "\(Mediaplay.executable) play \(tone) --no-video --audio-out \(home.folder.path)/out.wav --untimed"
        for redirect in ["2>/dev/full", "2>&-"] {
            let child = try ChildProcess("/bin/sh", ["-c", "exec \(play) \(redirect)"], environment: environment, stdin: "/dev/null", stdout: "/dev/null", stderr: "/dev/null")
            let status = await offPool { child.waitUntilExit() }
            #expect(!ChildProcess.killedBySignal(status) && ChildProcess.code(status) == 0, "\(redirect): \(status)")
        }
        #expect(try await home.run("toggle", "1").status == 0)
        let quit = try ChildProcess("/bin/sh", ["-c", "exec \(Mediaplay.executable) quit 2>&-"], environment: environment, stdin: "/dev/null", stdout: "/dev/null", stderr: "/dev/null")
        let quitStatus = await offPool { quit.waitUntilExit() }
        #expect(!ChildProcess.killedBySignal(quitStatus) && ChildProcess.code(quitStatus) == 0)
        let log = (try? String(contentsOfFile: home.folder.path + "/state/mediaplay/daemon.log", encoding: .utf8)) ?? ""
        #expect(!log.contains("bad-request"), "the message went into the socket: \(log)")
    }

    /// A FIFO where a file should be: a local item fails at once, and a
    /// FIFO in the cache is replaced by the real download (`open` blocked
    /// for ever and ignored SIGTERM).
    @Test func aFIFOIsNeverOpened() async throws {
        let tone = try await Self.tone()
        let folder = try TemporaryDirectory()
        let fifo = folder.path + "/fifo.wav"
        mkfifo(fifo, 0o600)
        let local = try await Mediaplay.runInProcess(["play", fifo, "--no-video", "--audio-out", folder.path + "/out.wav", "--untimed"])
        #expect(local.status != 0 && !local.killedBySignal, "\(local.stderr)")

        let server = try TestHTTPServer()
        server.serve("/tone.wav", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: tone))))
        let feed = try folder.write("feed.json", #"[{"type": 1, "title": "Tone", "url": "\#(server.url("/tone.wav").absoluteString)"}]"#)
        let cache = folder.path + "/cache"
        #expect(try await Mediaplay.runInProcess(["fetch", "1", "--feed", feed, "--cache-dir", cache]).status == 0)
        let entries = cache + "/entries"
        let data = try #require(try FileManager.default.contentsOfDirectory(atPath: entries).first { !$0.hasSuffix(".lock") && !$0.hasSuffix(".part") })
        unlink(entries + "/" + data)
        mkfifo(entries + "/" + data, 0o600)
        let played = try await Mediaplay.runInProcess(["play", "1", "--feed", feed, "--cache-dir", cache, "--no-video", "--audio-out", folder.path + "/again.wav", "--untimed"])
        #expect(played.status == 0, "\(played.stderr)")
        // The play may end before its download does: fetch finishes it.
        #expect(try await Mediaplay.runInProcess(["fetch", "1", "--feed", feed, "--cache-dir", cache]).status == 0)
        var info = stat()
        #expect(lstat(entries + "/" + data, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "fetched anew as a file")
    }

    /// Links planted in the cache (a part file, the index) are never
    /// followed: their targets keep their bytes.
    @Test func cacheLinksAreNotFollowed() async throws {
        let folder = try TemporaryDirectory()
        let server = try TestHTTPServer()
        let body = [UInt8](repeating: 0x5A, count: 50_000)
        server.serve("/a.bin", bytes: body)
        let feed = try folder.write("feed.json", #"[{"type": 1, "title": "A", "url": "\#(server.url("/a.bin").absoluteString)"}]"#)
        let cache = folder.path + "/cache"
        #expect(try await Mediaplay.runInProcess(["fetch", "1", "--feed", feed, "--cache-dir", cache]).status == 0)
        let entries = cache + "/entries"
        let data = try #require(try FileManager.default.contentsOfDirectory(atPath: entries).first { !$0.hasSuffix(".lock") && !$0.hasSuffix(".part") })
        let victim = try folder.write("victim.txt", "precious\n")
        unlink(entries + "/" + data)
        symlink(victim, entries + "/" + data + ".part")
        let index = cache + "/index.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(index + suffix) }
        let otherVictim = try folder.write("other.txt", "also precious\n")
        symlink(otherVictim, index)
        let fetched = try await Mediaplay.runInProcess(["fetch", "1", "--feed", feed, "--cache-dir", cache])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try String(contentsOfFile: otherVictim, encoding: .utf8) == "also precious\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: entries + "/" + data)) == Data(body))
    }

    /// Text from a feed cannot turn a table row around: a right-to-left
    /// override shows as `\u{202E}`, in list and in status.
    @Test func directionOverridesAreShownNotObeyed() async throws {
        let tone = try await Self.tone()
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", #"[{"type": 1, "title": "abc\u202Edef\u2066x", "url": "file://\#(tone)"}]"#)
        let list = try await home.runInProcess("list")
        #expect(!list.stdout.contains("\u{202E}") && !list.stdout.contains("\u{2066}"), "\(list.stdout)")
        #expect(list.stdout.contains(#"abc\u{202E}def\u{2066}x"#), "\(list.stdout)")
        let json = try await home.runInProcess("list", "--json")
        #expect(json.status == 0)
    }

    /// A server that compresses a file it was asked for as is: refused with
    /// one clear line, nothing kept as "cached".
    @Test func aCompressedResponseIsRefusedClearly() async throws {
        let folder = try TemporaryDirectory()
        let server = try TestHTTPServer()
        server.serve("/song.mp3", bytes: [UInt8](repeating: 1, count: 4000), contentEncoding: "gzip")
        let feed = try folder.write("feed.json", #"[{"type": 1, "title": "Song", "url": "\#(server.url("/song.mp3").absoluteString)"}]"#)
        let cache = folder.path + "/cache"
        let fetched = try await Mediaplay.runInProcess(["fetch", "1", "--feed", feed, "--cache-dir", cache])
        #expect(fetched.status != 0 && fetched.stderr.contains("Content-Encoding: gzip"), "\(fetched.stderr)")
        #expect(server.requests("/song.mp3").first?.headers["accept-encoding"] == "identity")
        let list = try await Mediaplay.runInProcess(["list", "--feed", feed, "--cache-dir", cache])
        #expect(!list.stdout.contains("cached"), "\(list.stdout)")
    }

    /// Twenty toggles of a cold player at once: one player, and no client
    /// told "stopped" while the item started.
    @Test func parallelColdTogglesAllSayWhatTheItemBecame() async throws {
        let tone = try await Self.tone()
        let home = try await UserHome.withFeed(playing: tone)
        let environment = home.environment
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for _ in 0..<20 { group.addTask { try await Mediaplay.runInProcess(["toggle", "1"], environment: environment) } }
            var all: [RunResult] = []
            for try await result in group { all.append(result) }
            return all
        }
        for result in results {
            #expect(result.status == 0 && !result.stdout.contains("stopped"), "\(result.stdout)\(result.stderr)")
        }
        _ = try await home.runInProcess("quit")
    }

    /// Twenty different items toggled in a row: each plays (devices of the
    /// items paused along the way are let go; the 16th failed with "Too
    /// many open audio devices").
    @Test func manyQuickTogglesReleaseTheirDevices() async throws {
        let tone = try await Self.tone()
        let home = try await UserHome()
        var items: [String] = []
        for index in 1...20 {
            let copy = home.folder.path + "/tone\(index).wav"
            link(tone, copy)
            items.append(#"{"type": 1, "title": "Tone \#(index)", "url": "file://\#(copy)"}"#)
        }
        home.feed = try home.folder.write("feed.json", "[" + items.joined(separator: ",") + "]")
        // Each item is toggled by hand: none may start the next by itself.
        // (Autoplay is turned off in a running player, before anything can
        // end; whatever an early end started is stopped.)
        #expect(try await home.runInProcess("toggle", "1").status == 0)
        #expect(try await home.runInProcess("autoplay", "off").status == 0)
        #expect(try await home.runInProcess("stop").status == 0)
        for index in 1...20 {
            let result = try await home.runInProcess("toggle", "\(index)")
            #expect(result.status == 0 && result.stdout.hasPrefix("▶ playing \(index)"), "\(index): \(result.stdout)\(result.stderr)")
        }
        _ = try await home.runInProcess("quit")
    }

    /// A server that answers with headers and then nothing: `--no-wait`
    /// returns at once (it waited 93 s), and the state says buffering, not
    /// playing, while nothing is decoded.
    @Test func noWaitReturnsAtOnceFromAServerThatSaysNothing() async throws {
        let tone = try await Self.tone()
        let server = try TestHTTPServer()
        server.serve("/tone.wav", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: tone))))
        server.inject("/tone.wav", [.holdAfter(0)])
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", #"[{"type": 1, "title": "Tone", "url": "\#(server.url("/tone.wav").absoluteString)"}]"#)
        let started = Date()
        let toggled = try await home.runInProcess("toggle", "--no-wait", "1")
        let waited = Date().timeIntervalSince(started)
        #expect(toggled.status == 0 && toggled.stdout.hasPrefix("◌ buffering 1"), "\(toggled.stdout)\(toggled.stderr)")
        // The regression waited 93 s (for the player). A cold start of the
        // background player on two cores with four builds beside it has
        // taken 45: the bound is the regression's, not a speed.
        #expect(waited < 80, "answered without waiting for the player (a cold start included): \(waited) s")
        let status = try await home.runInProcess("status")
        #expect(!status.stdout.contains("▶ playing"), "nothing decoded is not playing: \(status.stdout)")
        server.release("/tone.wav")
        _ = try await home.runInProcess("quit")
    }
}

