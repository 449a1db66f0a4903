import Foundation
import Testing
import TestKit

/// The background player on a private session bus (a dbus-daemon of the
/// test's own), driven by `playerctl` as a desktop would, on SDL's disk
/// audio driver; the signals checked with `dbus-monitor`.
@Suite(.serialized) struct MPRISTests {
    /// A session bus of its own, gone with the test.
    final class Bus: @unchecked Sendable {
        let address: String
        private let daemon: ChildProcess

        init(in folder: TemporaryDirectory) async throws {
            let socket = folder.path + "/bus"
            address = "unix:path=" + socket
            daemon = try ChildProcess("/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=" + address], environment: [:])
            try await Wait.forFile(socket)
        }

        deinit { stop() }

        /// Ends the bus daemon (and reaps it).
        func stop() {
            guard daemon.isRunning else { return }
            kill(daemon.pid, SIGKILL)
            daemon.waitUntilExit()
        }
    }

    final class World: UserHome, @unchecked Sendable {
        let busFolder: TemporaryDirectory
        let bus: Bus
        let long: String
        let tone: String

        override init() async throws {
            long = try await Fixtures.make("tagged-20s.mp3", [
                "-f", "lavfi", "-i", "sine=frequency=330:duration=20", "-metadata", "artist=The Artist", "-metadata", "album=The Album",
                "-c:a", "libmp3lame", "-b:a", "96k",
            ])
            tone = try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
            busFolder = try TemporaryDirectory()
            bus = try await Bus(in: busFolder)
            try await super.init()
            // A title with bytes that are not UTF-8: repaired before the bus.
            let feedPath = folder.path + "/feed.json"
            var bytes = Array(#"[{"type": 1, "title": "Tone", "url": "file://\#(tone)"}, {"type": 1, "id": "long one", "title": "Long \#u{e9} "#.utf8)
            bytes += [0xFF, 0xFE]
            bytes += Array(#"", "url": "file://\#(long)"}]"#.utf8)
            try Data(bytes).write(to: URL(fileURLWithPath: feedPath))
            feed = feedPath
        }

        override var environment: [String: String] {
            super.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        }

        func playerctl(_ arguments: String...) async throws -> String {
            let result = try await Mediaplay.start(arguments, environment: environment, executable: "/usr/bin/playerctl").wait()
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func status() async throws -> [String: Any] {
            let result = try await run("status", "--json")
            return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }
    }

    @Test func playerctlControlsTheBackgroundPlayer() async throws {
        let world = try await World()
        defer { world.bus.stop() }
        let monitorOutput = world.folder.path + "/monitor.txt"
        let monitor = try ChildProcess("/usr/bin/dbus-monitor", ["--address", world.bus.address, "type='signal',path='/org/mpris/MediaPlayer2'"], environment: [:], stdout: monitorOutput)
        defer { kill(monitor.pid, SIGKILL) }
        #expect(try await world.run("toggle", "2").status == 0)
        defer { Task { _ = try? await world.run("quit") } }

        #expect(try await world.playerctl("-l") == "mediaplay")
        #expect(try await world.playerctl("status") == "Playing")
        #expect(try await world.playerctl("metadata", "title") == "Long \u{e9} \u{FFFD}\u{FFFD}", "valid UTF-8, repaired")
        #expect(try await world.playerctl("metadata", "mpris:trackid") == "'/org/mediaplay/Item/long_20one'", "the id as an object path")
        let length = Int(try await world.playerctl("metadata", "mpris:length")) ?? 0
        #expect(abs(length - 20_000_000) < 100_000, "the length in µs: \(length)")
        #expect(try await world.playerctl("metadata", "xesam:artist") == "The Artist")
        #expect(try await world.playerctl("metadata", "xesam:album") == "The Album")
        #expect(try await world.playerctl("metadata", "xesam:url") == "file://" + world.long)

        // Pause: the player says so, and so does mediaplay.
        _ = try await world.playerctl("play-pause")
        #expect(try await world.playerctl("status") == "Paused")
        #expect(try await world.run("status").stdout.hasPrefix("⏸ paused 2"))
        // Position after a seek (paused: it stays there).
        _ = try await world.playerctl("position", "12")
        let position = Double(try await world.playerctl("position")) ?? 0
        #expect(abs(position - 12) < 0.05, "at 12 s: \(position)")
        // SetPosition for another item's track id is ignored, as the specification says.
        let stale = try await Mediaplay.start([
            "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.mediaplay", "/org/mpris/MediaPlayer2",
            "org.mpris.MediaPlayer2.Player.SetPosition", "objpath:/org/mediaplay/Item/Tone", "int64:3000000",
        ], environment: world.environment, executable: "/usr/bin/dbus-send").wait()
        #expect(stale.status == 0, "\(stale.stderr)")
        let unmoved = Double(try await world.playerctl("position")) ?? 0
        #expect(abs(unmoved - 12) < 0.05, "a stale track id moves nothing: \(unmoved)")
        _ = try await world.playerctl("play")
        #expect(try await world.playerctl("status") == "Playing")

        // A huge volume from a client is clamped to 150 %, not a crash.
        let huge = try await Mediaplay.start([
            "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.mediaplay", "/org/mpris/MediaPlayer2",
            "org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player", "string:Volume", "variant:double:1e30",
        ], environment: world.environment, executable: "/usr/bin/dbus-send").wait()
        #expect(huge.status == 0, "\(huge.stderr)")
        #expect((try await world.status()["audio"] as? [String: Any])?["volume"] as? Int == 150)
        _ = try await world.playerctl("volume", "0.5")
        #expect((try await world.status()["audio"] as? [String: Any])?["volume"] as? Int == 50)
        #expect(try await world.playerctl("volume") == "0.500000")
        _ = try await world.playerctl("loop", "Track")
        _ = try await world.playerctl("shuffle", "On")
        let playlist = try await world.status()["playlist"] as? [String: Any]
        #expect(playlist?["repeat"] as? String == "one" && playlist?["shuffle"] as? Bool == true, "\(String(describing: playlist))")
        #expect(try await world.playerctl("loop") == "Track")
        _ = try await world.playerctl("shuffle", "Off")
        _ = try await world.playerctl("loop", "None")

        // Previous and next move through the feed, as `prev` and `next` do.
        _ = try await world.playerctl("previous")
        #expect(try await world.playerctl("metadata", "title") == "Tone")
        _ = try await world.playerctl("next")
        #expect(try await world.playerctl("metadata", "title").hasPrefix("Long"))
        _ = try await world.playerctl("stop")
        #expect(try await world.playerctl("status") == "Stopped")

        // The signals a desktop widget follows, as dbus-monitor writes them.
        let expectedSignals = [#"string "Paused""#, #"string "Playing""#, "double 0.5", #"string "Track""#, #"string "Stopped""#]
        try await Wait.until(changesAt: world.folder.path) {
            let signals = (try? String(contentsOfFile: monitorOutput, encoding: .utf8)) ?? ""
            return signals.contains("member=Seeked") && expectedSignals.allSatisfy { signals.contains($0) }
        }
        let signals = (try? String(contentsOfFile: monitorOutput, encoding: .utf8)) ?? ""
        #expect(signals.contains("member=Seeked"), "Seeked on the jump")
        for expected in expectedSignals {
            #expect(signals.contains(expected), "PropertiesChanged with \(expected)")
        }
    }

    /// OpenUri plays a feed item added to the file while the player runs (MPRIS
    /// follows the feed as the socket's requests do); its picture is the art.
    @Test func openUriFollowsTheFeedAndTheArtIsAFileURL() async throws {
        let world = try await World()
        defer { world.bus.stop() }
        let picture = try await Fixtures.make("picture.png", Fixtures.images[0].arguments)
        #expect(try await world.run("toggle", "1").status == 0)
        defer { Task { _ = try? await world.run("quit") } }
        try Data("""
            [{"type": 1, "title": "Tone", "url": "file://\(world.tone)"},
             {"type": 1, "title": "Added", "url": "file://\(world.long)", "thumbnail": "file://\(picture)"}]
            """.utf8).write(to: URL(fileURLWithPath: world.feed))
        _ = try await world.playerctl("open", "file://" + world.long)
        #expect(try await world.playerctl("metadata", "title") == "Added")
        #expect(try await world.playerctl("metadata", "mpris:artUrl") == "file://" + picture)
    }

    /// The bus going away (a logout, a restart) ends MPRIS with a line in the
    /// log, and nothing spins: the idle daemon uses no CPU.
    @Test func aLostBusEndsMPRISQuietly() async throws {
        let world = try await World()
        defer { world.bus.stop() }
        #expect(try await world.run("toggle", "1").status == 0)
        #expect(try await world.run("stop").status == 0)
        let pid = try #require(world.daemonPID)
        world.bus.stop()
        // The player has noticed: its log says so.
        let log = world.folder.path + "/state/mediaplay/daemon.log"
        try await Wait.forFile(log, containing: "MPRIS off: cannot stay on the session bus")
        func cpuTicks() -> Int {
            let fields = ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").split(separator: ")").last?.split(separator: " ") ?? []
            return fields.count > 13 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : -1
        }
        let before = cpuTicks()
        // CPU used over a second of wall time: what is measured is the
        // absence of work, which no event shows.
        try await Task.sleep(for: .seconds(1))
        let used = cpuTicks() - before
        #expect(before >= 0 && used <= 2, "\(used) ticks of CPU in a second with the bus gone")
        #expect(try await world.run("status").status == 0, "the player still answers")
        _ = try await world.run("quit")
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(logged.contains("MPRIS off: cannot stay on the session bus"), "\(logged)")
    }

    /// A second background player (another runtime directory) takes a name
    /// of its own; without a session bus the player runs as before.
    @Test func aSecondPlayerTakesAnInstanceNameAndNoBusIsNoMatter() async throws {
        let world = try await World()
        defer { world.bus.stop() }
        #expect(try await world.run("toggle", "1").status == 0)
        defer { Task { _ = try? await world.run("quit") } }
        var other = world.environment
        other["XDG_RUNTIME_DIR"] = world.folder.path + "/run2"
        other["XDG_STATE_HOME"] = world.folder.path + "/state2"
        #expect(try await Mediaplay.run(["toggle", "1"], environment: other).status == 0)
        let names = try await world.playerctl("-l").split(separator: "\n").map(String.init).sorted()
        _ = try await Mediaplay.run(["quit"], environment: other)
        #expect(names.count == 2 && names[0] == "mediaplay" && names[1].hasPrefix("mediaplay.instance"), "\(names)")

        var noBus = world.environment
        noBus["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + world.folder.path + "/no-such-bus"
        noBus["XDG_RUNTIME_DIR"] = world.folder.path + "/run3"
        noBus["XDG_STATE_HOME"] = world.folder.path + "/state3"
        let started = try await Mediaplay.run(["toggle", "1"], environment: noBus)
        #expect(started.status == 0 && started.stdout.hasPrefix("▶ playing 1"), "\(started.stdout)\(started.stderr)")
        _ = try await Mediaplay.run(["quit"], environment: noBus)
        let log = (try? String(contentsOfFile: world.folder.path + "/state3/mediaplay/daemon.log", encoding: .utf8)) ?? ""
        #expect(log.components(separatedBy: "MPRIS off").count == 2, "one line in the log: \(log)")
    }
}
