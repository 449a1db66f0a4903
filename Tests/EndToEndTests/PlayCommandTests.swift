import Foundation
import Testing
import InProcessRunner
import TestKit

/// `mediaplay play` as a process: recorded output equals ffmpeg's, and
/// broken inputs end with one line and 65 (what plays to a real device in
/// real time is RealTimeTests.PlayCommandTests).
@Suite struct PlayCommandTests {
    @Test func audioOutEqualsFFmpeg() async throws {
        let fixture = Fixtures.audioCodecs[0]
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.run(["play", path, "--audio-out", folder.path + "/out.wav", "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "playing \"tone.mp3\"\nended \"tone.mp3\"\n")
        let wav = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav"))
        #expect(Array(wav.dropFirst(44)) == (try await Fixtures.referencePCM(path)))
    }

    @Test func videoOutEqualsFFmpeg() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.runInProcess(["play", path, "--no-audio", "--video-out", folder.path + "/frames.txt", "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOfFile: folder.path + "/frames.txt", encoding: .utf8).split(separator: "\n")
        #expect(lines.map { String($0.split(separator: " ")[1]) } == (try await Fixtures.referenceFrameHashes(path)))
        #expect(lines.first?.hasPrefix("0.000000 ") == true)
    }

    @Test(arguments: ["empty.mp4", "garbage.mp3", "text.mp4", "truncated.mp4", "truncated.jpg", "subtitles.mp3", "subtitles.mkv", "no-channels.wav"], [false, true])
    func brokenInputEndsWithOneLineAndExit65(_ name: String, inAWindow: Bool) async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/" + name
        switch name {
        case "empty.mp4":
            try Data().write(to: URL(fileURLWithPath: path))
        case "garbage.mp3":
            try Data(TestHTTPServer.bytes(count: 50_000, seed: 5)).write(to: URL(fileURLWithPath: path))
        case "text.mp4":
            try Data(String(repeating: "This is a text file, not a video.\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        case "truncated.mp4":
            let source = try Data(contentsOf: URL(fileURLWithPath: try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)))
            try source.prefix(source.count / 3).write(to: URL(fileURLWithPath: path))
        // No playable stream: these crashed play and the daemon (the format
        // context was closed twice).
        case "subtitles.mp3":
            try Data(Self.subtitles.utf8).write(to: URL(fileURLWithPath: path))
        case "subtitles.mkv":
            let srt = folder.path + "/subtitles.srt"
            try Data(Self.subtitles.utf8).write(to: URL(fileURLWithPath: srt))
            let made = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", srt, "-c:s", "srt", path])
            #expect(made.status == 0)
        case "no-channels.wav":
            try Data(Self.wavHeader(channels: 0, rate: 8000, dataBytes: 16000) + [UInt8](repeating: 1, count: 16000)).write(to: URL(fileURLWithPath: path))
        case "truncated.jpg":
            let source = try Data(contentsOf: URL(fileURLWithPath: try await Fixtures.make("picture.jpg", Fixtures.images[1].arguments)))
            try source.prefix(source.count / 3).write(to: URL(fileURLWithPath: path))
        default:
            break
        }
        let result = inAWindow
            ? try await Mediaplay.run(["play", path], environment: ["SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"])
            : try await Mediaplay.run(["play", path, "--no-audio", "--video-out", folder.path + "/f.txt", "--untimed"])
        #expect(result.status == 65, "\(name): \(result.stderr)")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("mediaplay:") }
        #expect(errors.count == 1, "\(name): \(result.stderr)")
        #expect(!result.stderr.contains("["), "no FFmpeg log lines: \(result.stderr)")
    }

    static let subtitles = "1\n00:00:00,000 --> 00:00:02,000\nOnly words, no sound.\n"

    /// A canonical 44-byte PCM WAV header, whatever its fields say.
    static func wavHeader(channels: UInt16, rate: UInt32, dataBytes: UInt32) -> [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        return Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(channels)
            + le32(rate) + le32(rate * UInt32(channels) * 2) + le16(channels * 2) + le16(16) + Array("data".utf8) + le32(dataBytes)
    }

    @Test func imageStaysOpenUntilClosed() async throws {
        let path = try await Fixtures.make("picture.png", Fixtures.images[0].arguments)
        let running = try Mediaplay.start(["play", path], environment: ["SDL_VIDEODRIVER": "dummy"])
        try await running.waitForStderr(containing: "playing")
        // That a picture stays is that nothing ends it: there is no event
        // for "still here", so a while of it is watched.
        try await Task.sleep(for: .milliseconds(300))
        #expect(running.isRunning, "the picture stays on screen")
        running.kill(SIGTERM)
        let result = try await running.wait()
        #expect(!result.killedBySignal && result.status == 128 + SIGTERM, "\(result.stderr)")
        #expect(result.stderr.hasSuffix("stopped \"picture.png\"\n"), "stopped, not ended: \(result.stderr)")
    }

    /// Ctrl-C ends play at once, says it stopped (it said "ended") and
    /// exits 130, as a shell expects of an interrupted command.
    @Test func ctrlCSaysStopped() async throws {
        // Long enough that the signal lands before the end on the busiest machine.
        let path = try await Fixtures.make("tone-30s.wav", ["-f", "lavfi", "-i", "sine=duration=30", "-c:a", "pcm_s16le"])
        let running = try Mediaplay.start(["play", path], environment: ["SDL_AUDIODRIVER": "dummy"])
        try await running.waitForStderr(containing: "playing")
        running.kill(SIGINT)
        let result = try await running.wait()
        #expect(!result.killedBySignal && result.status == 130, "\(result.status) \(result.stderr)")
        #expect(result.stderr.hasSuffix("stopped \"tone-30s.wav\"\n"), "\(result.stderr)")
    }

    /// No sound card (ALSA asked for a card that is not there): none of
    /// alsa-lib's own lines, and one line of ours for two items.
    @Test func noSoundDeviceIsOneLine() async throws {
        let path = try await Fixtures.make("tone-half.wav", ["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "pcm_s16le"])
        let result = try await Mediaplay.run(["play", path, path], environment: ["SDL_AUDIODRIVER": "alsa", "AUDIODEV": "hw:99,0"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("ALSA"), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "mediaplay: no sound device: playing silently\n").count == 2, "said once: \(result.stderr)")
    }

    @Test func withoutADisplayAVideoPlaysItsAudio() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.run(["play", path, "--audio-out", folder.path + "/out.wav", "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("mediaplay: no display"), "\(result.stderr)")
        let wav = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav"))
        #expect(Array(wav.dropFirst(44)) == (try await Fixtures.referencePCM(path)))
    }

    /// A recording is written as a shell's `>` writes: through a symlink,
    /// into the file it names (it replaced the link, and as root turned
    /// `--video-out /dev/null` into a regular file).
    @Test func recordingsWriteThroughASymlink() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/frames.txt", withDestinationPath: folder.path + "/real-frames.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/out.wav", withDestinationPath: folder.path + "/real.wav")
        let result = try await Mediaplay.runInProcess(["play", path, "--video-out", folder.path + "/frames.txt", "--audio-out", folder.path + "/out.wav", "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        for link in ["frames.txt", "out.wav"] {
            let kind = try FileManager.default.attributesOfItem(atPath: folder.path + "/" + link)[.type] as? FileAttributeType
            #expect(kind == .typeSymbolicLink, "\(link) is still a link")
        }
        #expect(try String(contentsOfFile: folder.path + "/real-frames.txt", encoding: .utf8).split(separator: "\n").count == 50)
        let wav = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/real.wav"))
        #expect(Array(wav.dropFirst(44)) == (try await Fixtures.referencePCM(path)))
    }

    @Test func withoutADisplayAPictureIsAnError() async throws {
        let path = try await Fixtures.make("picture.png", Fixtures.images[0].arguments)
        let result = try await Mediaplay.run(["play", path])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr == "mediaplay: cannot show item 1 \"picture.png\": no display (set DISPLAY, use --vo terminal, or record frames with --video-out)\n")
    }

    @Test func startSecondsIn() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.runInProcess(["play", path, "--start", "1", "--audio-out", folder.path + "/out.wav", "--no-video", "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        let wav = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav"))
        let matches = Array(wav.dropFirst(44)) == (try await Fixtures.referencePCM(path, start: 1))
        #expect(matches, "--start 1 equals ffmpeg -ss 1")
    }
}
