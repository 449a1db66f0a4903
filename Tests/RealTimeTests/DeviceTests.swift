import Foundation
import Testing
import TestKit

/// What reaches the audio device in real time (SDL's disk driver): the
/// join between two items, and how soon a volume change is heard. Run in
/// the quiet phase (Makefile): both depend on the machine keeping up.
@Suite(.serialized) struct DeviceTests {
    /// Autoplay from one tone to another of the same format through the real
    /// device: the device receives item one's PCM, then item two's, with
    /// not one sample between (the device is handed on, not reopened).
    @Test func autoplayIsGaplessOnTheDevice() async throws {
        let home = try await UserHome()
        let wav = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let flac = Fixtures.audioCodecs.first { $0.name == "tone.flac" }!
        let first = try await Fixtures.make(wav.name, wav.arguments)
        let second = try await Fixtures.make(flac.name, flac.arguments)
        home.feed = try home.folder.write("feed.json", """
            [{"type": 1, "title": "One", "url": "file://\(first)"}, {"type": 1, "title": "Two", "url": "file://\(second)"}]
            """)
        let script = try home.folder.write("script.txt", """
            autoplay on
            toggle 1
            wait-until ended 2 30s
            """)
        let result = try await Mediaplay.run(["script", script], environment: home.environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let joined = try await Fixtures.referencePCM(first) + (try await Fixtures.referencePCM(second))
        #expect(try DeviceRecording.holds(home.disk, exactly: joined), "the device got both items joined, with nothing between")
    }

    /// A volume change while playing is heard within 100 ms of the reply:
    /// the first 10 ms block at the new level is found in the device's
    /// recording, and compared with how much the device had played when
    /// the command returned.
    @Test func aVolumeChangeReachesTheDeviceWithin100ms() async throws {
        let home = try await UserHome()
        let tone = try await Fixtures.make("tone-10s.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=10:sample_rate=48000", "-ac", "2", "-c:a", "pcm_s16le"])
        home.feed = try home.folder.write("feed.json", "[{\"type\": 1, \"title\": \"Tone\", \"url\": \"file://\(tone)\"}]")
        #expect(try await home.run("toggle", "1").status == 0)
        defer { Task { _ = try? await home.run("quit") } }
        // Well into playback, the device buffers full: two seconds played.
        _ = try await home.waitForPlayer { PlayerObserver.isPlaying($0, past: 2) }
        let before = Self.size(home.disk)
        let changed = try await home.run("volume", "50")
        let replied = Self.size(home.disk)
        #expect(changed.status == 0, "\(changed.stderr)")
        // 0.8 s more played after the reply.
        let bytesPerSecond = 48000 * 4
        try await Wait.forFile(home.disk, size: replied + bytesPerSecond * 8 / 10)
        _ = try await home.run("quit")

        let samples = try Data(contentsOf: URL(fileURLWithPath: home.disk)).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let block = 480 * 2  // 10 ms of stereo samples
        func peak(_ index: Int) -> Int { samples[index * block..<min((index + 1) * block, samples.count)].map { abs(Int($0)) }.max() ?? 0 }
        let full = peak(before / 4 / block - 5)
        #expect(full > 1000, "the tone plays at full level before the change")
        let firstHalved = try #require((before / 4 / block..<samples.count / block).first { Double(peak($0)) < Double(full) * 0.6 }, "the level drops")
        let latency = Double(firstHalved * block * 2 - replied) / Double(bytesPerSecond)
        #expect(latency < 0.1, "heard \(Int(latency * 1000)) ms after the reply")
        // And it stays at half: the rest of the ring was not played at full level.
        #expect(Double(peak(firstHalved + 5)) < Double(full) * 0.6)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
