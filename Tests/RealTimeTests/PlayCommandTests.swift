import Foundation
import Testing
import TestKit

/// `mediaplay play` to a real device in real time: SDL's disk driver
/// records what it played (the rest of play's tests are EndToEndTests').
@Suite struct PlayCommandTests {
    @Test func realSDLOutputContainsTheReference() async throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone-8k-mono.wav" }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        let disk = folder.path + "/device.raw"
        let result = try await Mediaplay.run(["play", path], environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": disk])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try DeviceRecording.holds(disk, exactly: try await Fixtures.referencePCM(path)), "the device received the reference PCM exactly")
    }

    @Test func videoPlaysInAWindowWithItsAudio() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.run(["play", path, "--stats"], environment: [
            "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": folder.path + "/device.raw",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try #require(PlayStatistics(stderr: result.stderr), "\(result.stderr)")
        // 50 frames in all: shown, or dropped when late (a loaded machine).
        #expect(stats.shown + stats.dropped == 50 && stats.shown > 25, "\(stats)")
        // The window does not disturb the audio: the device got the reference exactly.
        #expect(try DeviceRecording.holds(folder.path + "/device.raw", exactly: try await Fixtures.referencePCM(path)))
    }
}
