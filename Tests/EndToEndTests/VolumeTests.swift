import Foundation
import Testing
import InProcessRunner
import TestKit

/// The audio filter stage against its oracle: `mediaplay play F --volume V`
/// records exactly what `ffmpeg -i F -map 0:a:0 -af volume=V/100 -f s16le -`
/// writes (Fixtures.referencePCM with `filters`), for lossy and lossless
/// codecs, above and below 100 %.
@Suite struct VolumeTests {
    static let cases: [(file: String, volume: Int)] = [
        ("tone.mp3", 50), ("tone.m4a", 150), ("tone.opus", 33), ("tone.flac", 75), ("tone.wav", 0), ("tone-5.1.m4a", 120),
    ]

    @Test(arguments: cases)
    func volumeMatchesFFmpegsVolumeFilter(_ test: (file: String, volume: Int)) async throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == test.file }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.runInProcess(["play", path, "--volume", String(test.volume), "--untimed", "--no-video", "--audio-out", folder.path + "/out.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav")).dropFirst(44))
        let gain = String(Double(test.volume) / 100)
        let reference = try await Fixtures.referencePCM(path, filters: "volume=\(gain)")
        #expect(recorded.count == reference.count, "\(test.file) at \(test.volume) %: \(recorded.count) bytes, ffmpeg \(reference.count)")
        #expect(recorded == reference, "\(test.file) at \(test.volume) %: not ffmpeg's samples")
    }

    /// Speed with the pitch kept: `--speed S` equals `-af atempo=S` (two
    /// atempo below 0.5), alone and after the volume.
    static let speedCases: [(file: String, volume: Int, speed: Double, filters: String)] = [
        ("tone.mp3", 100, 1.5, "atempo=1.5"), ("tone.m4a", 50, 1.5, "volume=0.5,atempo=1.5"),
        ("tone.opus", 100, 0.75, "atempo=0.75"), ("tone.flac", 80, 2, "volume=0.8,atempo=2.0"),
        ("tone.wav", 100, 0.25, "atempo=0.5,atempo=0.5"), ("tone.wav", 100, 4, "atempo=4.0"),
    ]

    @Test(arguments: speedCases)
    func speedMatchesFFmpegsAtempo(_ test: (file: String, volume: Int, speed: Double, filters: String)) async throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == test.file }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.runInProcess([
            "play", path, "--volume", String(test.volume), "--speed", String(test.speed), "--untimed", "--no-video", "--audio-out", folder.path + "/out.wav",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav")).dropFirst(44))
        let reference = try await Fixtures.referencePCM(path, filters: test.filters)
        #expect(recorded.count == reference.count, "\(test.file) -af \(test.filters): \(recorded.count) bytes, ffmpeg \(reference.count)")
        #expect(recorded == reference, "\(test.file) -af \(test.filters): not ffmpeg's samples")
    }

    @Test func fullVolumeIsPlainDecodingAndMuteIsSilence() async throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone.m4a" }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        _ = try await Mediaplay.runInProcess(["play", path, "--volume", "100", "--untimed", "--no-video", "--audio-out", folder.path + "/full.wav"])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/full.wav")).dropFirst(44)) == (try await Fixtures.referencePCM(path)))
        _ = try await Mediaplay.runInProcess(["play", path, "--mute", "--untimed", "--no-video", "--audio-out", folder.path + "/muted.wav"])
        let muted = Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/muted.wav")).dropFirst(44))
        #expect(!muted.isEmpty && muted.allSatisfy { $0 == 0 })
    }

    @Test func aVolumeOutsideTheRangeIsAUsageError() async throws {
        let result = try await Mediaplay.runInProcess(["play", "x.wav", "--volume", "200"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--volume takes a percentage from 0 to 150"), "\(result.stderr)")
    }
}
