import Foundation
import Testing
import TestKit

/// Files whose audio and video streams differ in length or start, played in
/// real time: every frame is shown (counted against ffprobe), the item ends
/// when the longer stream ends, and the process exits. A watchdog turns a
/// hang into a failure instead of a stuck suite.
@Suite struct UnequalStreamsTests {
    /// Longer than any of the 3 s clips takes, on the busiest machine.
    static let watchdog: Double = 30

    @Test(arguments: Fixtures.unequalStreams.map(\.name))
    func playShowsEveryFrameAndExits(_ name: String) async throws {
        let fixture = Fixtures.unequalStreams.first { $0.name == name }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let expected = try await Fixtures.frameCount(path)
        let folder = try TemporaryDirectory()
        let running = try Mediaplay.start(["play", path, "--stats"], environment: [
            "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": folder.path + "/device.raw",
        ])
        let result = try await Self.waitOrKill(running)
        #expect(!result.killedBySignal, "\(name) still played after \(Self.watchdog) s: \(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("ended \"\(name)\""), "\(result.stderr)")
        let stats = try #require(PlayStatistics(stderr: result.stderr), "\(result.stderr)")
        // Every frame is accounted for: shown, or dropped when late on a loaded machine.
        #expect(stats.shown + stats.dropped == expected && stats.shown * 2 >= expected, "\(name): \(stats), ffprobe counts \(expected)")
        // In step with the audio (late audio played at once was a second
        // off); the bound allows a loaded machine's late wake-ups (one CI
        // run beside another suite saw over 200 ms).
        #expect(stats.driftMax < 500, "\(name): \(stats)")
        // The sound is ffmpeg's, sample for sample (after any silence that
        // puts late audio in place): the clock changes touched no sample.
        let reference = try await Fixtures.referencePCM(path)
        #expect(try DeviceRecording.holds(folder.path + "/device.raw", exactly: reference), "\(name): the device got ffmpeg's PCM")
    }

    /// Audio that starts late is preceded by silence on the device, so that
    /// the first sample is heard when its timestamp comes.
    @Test func lateAudioIsPrecededBySilence() async throws {
        let fixture = Fixtures.unequalStreams.first { $0.name == "audio-starts-late.mp4" }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        let disk = folder.path + "/device.raw"
        let running = try Mediaplay.start(["play", path, "--no-video"], environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": disk])
        let result = try await Self.waitOrKill(running)
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: disk)))
        let firstSound = try #require(recorded.firstIndex { $0 != 0 })
        let seconds = Double(firstSound) / (44100 * 4)
        #expect(seconds >= 0.95, "the tone starts about a second in, not at once: \(seconds) s")
    }

    /// The background player ends such an item, at the end of its longer
    /// stream, so that what comes next can play.
    @Test(arguments: Fixtures.unequalStreams.map(\.name))
    func theBackgroundPlayerEndsIt(_ name: String) async throws {
        let fixture = Fixtures.unequalStreams.first { $0.name == name }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", #"[{"type": 2, "title": "Long video", "url": "file://\#(path)"}]"#)
        var environment = home.environment
        environment["SDL_VIDEODRIVER"] = "dummy"
        let started = try await Mediaplay.run(["toggle", "1"], environment: environment)
        #expect(started.status == 0, "\(started.stderr)")
        _ = try await home.waitForPlayer { PlayerObserver.state($0) == "ended" }
        let status = try await Mediaplay.run(["status", "--json"], environment: environment)
        let current = ((try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any])?["current"] as? [String: Any]
        let state = current?["state"] as? String
        let position = current?["position"] as? Double
        #expect(state == "ended", "\(name) ends")
        #expect(position.map { abs($0 - 3) < 0.1 } == true, "\(name) ends at its longer stream's end: \(position ?? -1)")
        _ = try await Mediaplay.run(["quit"], environment: environment)
    }

    static func waitOrKill(_ running: RunningProcess) async throws -> RunResult {
        if try await !running.exits(within: Self.watchdog) { running.kill(SIGKILL) }
        return try await running.wait()
    }
}
