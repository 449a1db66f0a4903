import Foundation
import MediaplayCommandLine
import Testing
import TestKit

/// The real daemon, started by the real `toggle`, playing to SDL's disk
/// audio driver: what reached the device is checked against ffmpeg.
@Suite(.serialized) struct BackgroundPlayerTests {
    static func current(_ status: [String: Any]?) -> [String: Any]? { status?["current"] as? [String: Any] }

    @Test func toggleStatusResumeAndQuitFromAFreshShell() async throws {
        let world = try await ToneFeedHome(long: true)
        let started = try await world.run("toggle", "1")
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stdout == "▶ playing 1 \"Tone\" 00:00/00:04\n")
        // A second into it (the player says so), then paused.
        let second = try await world.waitForPlayer { PlayerObserver.isPlaying($0, past: 1) }
        #expect(second != nil, "the player reports playing past 1 s")
        let paused = try await world.run("toggle", "1")
        #expect(paused.stdout.hasPrefix("⏸ paused 1 \"Tone\" at 00:0"), "\(paused.stdout)\(paused.stderr)")

        let status = Self.current(try await world.status())
        #expect(status?["state"] as? String == "paused")
        let position = status?["position"] as? Double ?? 0
        // Near one second: the client's own start on a loaded two-core machine
        // (the quiet phase still runs several suites) has taken up to 1 s.
        #expect(position > 0.8 && position < 3, "paused near one second: \(position)")
        #expect(try await world.run("status").stdout.hasPrefix("⏸ paused 1 \"Tone\" at 00:0"))
        // list shows it too, before the file's own state; the invalid item has none.
        let listed = try JSONDecoder().decode(ListJSON.self, from: Data(try await world.run("list", "--json").stdout.utf8))
        let playback = listed.items[0].playback
        #expect(playback?.state == "paused" && playback?.duration == 4 && playback?.progress == nil)
        #expect(abs((playback?.position ?? 0) - position) < 1e-6, "where status said it paused")
        #expect(listed.items[1].playback == nil)
        let rawItems = (try JSONSerialization.jsonObject(with: Data(try await world.run("list", "--json").stdout.utf8)) as? [String: Any])?["items"] as? [[String: Any]]
        #expect((rawItems?.first?["playback"] as? [String: Any]).map { Set($0.keys) } == ["state", "position", "duration", "progress"], "every key, null included")
        let table = try await world.run("list").stdout
        #expect(["00:00", "00:01", "00:02"].contains { table.contains("⏸ paused at \($0) · local file") }, "\(table)")

        // The device is let go 0.25 s into a pause; then its recording is
        // whole: waited for as the driver writes and closes the file.
        let reference = try await Fixtures.referencePCM(world.tone)
        let played = Int((position - 0.05) * 44100) * 4
        try await Wait.until(changesAt: world.folder.path) { try DeviceRecording.holds(world.disk, exactly: Array(reference.prefix(played))) }
        #expect(try DeviceRecording.holds(world.disk, exactly: Array(reference.prefix(played))), "the device got the tone's first \(played) bytes exactly")

        let resumed = try await world.run("toggle", "1")
        #expect(resumed.stdout.hasPrefix("▶ playing 1 \"Tone\" 00:0"), "resumes where it paused: \(resumed.stdout)")
        let after = Self.current(try await world.status())?["position"] as? Double ?? 0
        #expect(after >= position - 0.001, "no jump back: \(after) after \(position)")

        // Played to the end: it stands at the end, and nothing is kept to resume.
        _ = try await world.waitForPlayer { PlayerObserver.state($0) == "ended" }
        let ended = Self.current(try await world.status())
        #expect(ended?["state"] as? String == "ended")
        let end = ended?["position"] as? Double ?? 0
        #expect(abs(end - 4.0) < 0.01, "an ended item stands at its end: \(end)")
        #expect(try await world.run("stop").stdout == "■ ended 1 \"Tone\"\n", "an ended item stays ended, with no position to resume")

        let quit = try await world.run("quit")
        #expect(quit.status == 0, "\(quit.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.socket), "the socket is removed")
        #expect(try await world.run("status").status == 69, "nobody home")
        #expect(try await world.run("quit").status == 0, "quitting twice is fine")
    }

    /// A plain `toggle N` is served before the argument parser (QuickToggle);
    /// a daemon of another feed, or any option, sends it to the full command
    /// before anything is done.
    @Test func aPlainToggleIsServedBeforeTheArgumentParser() async throws {
        let world = try await ToneFeedHome(long: true)
        #expect(try await world.run("toggle", "1").status == 0, "the full command starts the daemon")
        let environment = world.environment
        let served = await offPool { QuickToggle.run(["mediaplay", "toggle", "1"], environment: { environment[$0] }) }
        #expect(served == 0, "served by QuickToggle")
        #expect(Self.current(try await world.status())?["state"] as? String == "paused")
        let elsewhere = environment.merging(["MEDIAPLAY_FEED": world.folder.path + "/other.json"]) { $1 }
        let otherFeed = await offPool { QuickToggle.run(["mediaplay", "toggle", "1"], environment: { elsewhere[$0] }) }
        #expect(otherFeed == nil, "another feed's daemon: the full command answers")
        let withOption = await offPool { QuickToggle.run(["mediaplay", "toggle", "--feed", "x", "1"], environment: { environment[$0] }) }
        #expect(withOption == nil)
        #expect(Self.current(try await world.status())?["state"] as? String == "paused", "and nothing was done")
        let refused = try await Mediaplay.run(["toggle", "1"], environment: elsewhere)
        #expect(refused.status == 69 && refused.stderr.contains("--replace switches it"), "\(refused.stderr)")
        #expect(try await world.run("quit").status == 0)
    }

    /// A toggle of an item that is not there (or cannot play) says so, and
    /// leaves no background player behind when it had to start one.
    @Test func exitCodesForBadItems() async throws {
        let world = try await ToneFeedHome()
        let missing = try await world.run("toggle", "7")
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr == "mediaplay: no item \"7\" in the feed (use 1–2 or an id from 'mediaplay list')\n")
        #expect(world.daemonPID.map { kill($0, 0) != 0 } ?? true, "no background player left running")
        #expect(try await world.run("status").status == 69, "nobody home")
        let invalid = try await world.run("toggle", "2")
        #expect(invalid.status == 65, "\(invalid.stderr)")
        #expect(invalid.stderr.contains("item 2 \"Odd\" is invalid"))
        #expect(try await world.run("status").status == 69, "nobody home after an invalid item either")
        #expect(try await world.run("toggle", "1").status == 0)
        let other = try await Mediaplay.run(["toggle", "1", "--feed", world.folder.path + "/other.json"], environment: world.environment)
        #expect(other.status == 69 && other.stderr.contains("--replace switches it to that feed"), "\(other.stderr)")
        #expect(try await world.run("quit").status == 0)
    }

    @Test func aRemoteItemPlaysWhileDownloadingAndAFailedOneExits69() async throws {
        let server = try TestHTTPServer()
        let tone = try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tone)))
        server.serve("/tone.wav", bytes: bytes)
        // Half the file, then the server holds the rest until released.
        server.inject("/tone.wav", [.holdAfter(bytes.count / 2)])
        let world = try await ToneFeedHome(extraItems: """
            ,
            {"type": 1, "title": "Remote", "url": "\(server.url("/tone.wav").absoluteString)"},
            {"type": 1, "title": "Gone", "url": "\(server.url("/gone.wav").absoluteString)"}
            """)
        let played = try await world.run("toggle", "3")
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stdout == "▶ playing 3 \"Remote\" 00:00/00:02\n")
        // Playing while the transfer is held half way: it started before the download could end.
        let status = try await world.run("status", "--json")
        #expect(status.stdout.contains("\"state\":\"playing\"") || status.stdout.contains("\"state\":\"buffering\""), "\(status.stdout)")
        server.release("/tone.wav")
        #expect(server.getCount("/tone.wav") == 1)

        let gone = try await world.run("toggle", "4")
        #expect(gone.status == 69, "\(gone.stderr)")
        #expect(gone.stderr.contains("\"Gone\": download failed") && gone.stderr.contains("404"), "\(gone.stderr)")
        #expect(try await world.run("quit").status == 0)
    }

    @Test func killMinus9LosesOnlyTheSecondsSinceTheLastSave() async throws {
        let world = try await ToneFeedHome()
        #expect(try await world.run("daemon", "--save-interval", "0.2").status == 0)
        let firstPID = world.daemonPID
        #expect(try await world.run("toggle", "1").status == 0)
        _ = try await world.waitForPlayer { PlayerObserver.isPlaying($0, past: 1) }
        let before = Self.current(try await world.status())?["position"] as? Double ?? 0
        if let firstPID {
            kill(firstPID, SIGKILL)
            #expect(try await Wait.forExit(of: firstPID), "killed")
        }
        #expect(FileManager.default.fileExists(atPath: world.socket), "a stale socket is left behind")

        let again = try await world.run("toggle", "1")
        #expect(again.status == 0, "the next toggle starts a fresh daemon: \(again.stderr)")
        #expect(world.daemonPID != firstPID)
        let resumedAt = Self.current(try await world.status())?["position"] as? Double ?? 0
        #expect(resumedAt >= before - 0.45 && resumedAt <= before + 0.3, "resumed near \(before): \(resumedAt)")

        // SIGTERM: a clean exit that removes the socket and keeps the position.
        if let pid = world.daemonPID { kill(pid, SIGTERM) }
        try await Wait.forNoFile(world.socket)
        #expect(!FileManager.default.fileExists(atPath: world.socket))
        let log = (try? String(contentsOfFile: world.folder.path + "/state/mediaplay/daemon.log", encoding: .utf8)) ?? ""
        #expect(log.contains("quitting: saving positions"), "\(log)")
    }
}
