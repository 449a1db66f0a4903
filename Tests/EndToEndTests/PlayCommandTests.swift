import Foundation
import Testing
import TestSupport

/// `mediaplay play` as a process: recorded output equals ffmpeg's, real SDL
/// output through the disk driver, and broken inputs end with one line and 65.
@Suite struct PlayCommandTests {
    @Test func audioOutEqualsFFmpeg() throws {
        let fixture = Fixtures.audioCodecs[0]
        let path = try Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        let result = try Mediaplay.run(["play", path, "--audio-out", folder.path + "/out.wav", "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "playing \"tone.mp3\"\nended \"tone.mp3\"\n")
        let wav = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav"))
        #expect(Array(wav.dropFirst(44)) == (try Fixtures.referencePCM(path)))
    }

    @Test func videoOutEqualsFFmpeg() throws {
        let path = try Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        let result = try Mediaplay.run(["play", path, "--no-audio", "--video-out", folder.path + "/frames.txt", "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOfFile: folder.path + "/frames.txt", encoding: .utf8).split(separator: "\n")
        #expect(lines.map { String($0.split(separator: " ")[1]) } == (try Fixtures.referenceFrameHashes(path)))
        #expect(lines.first?.hasPrefix("0.000000 ") == true)
    }

    @Test func realSDLOutputContainsTheReference() throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone-8k-mono.wav" }!
        let path = try Fixtures.make(fixture.name, fixture.arguments)
        let folder = try TemporaryDirectory()
        let disk = folder.path + "/device.raw"
        let result = try Mediaplay.run(["play", path], environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": disk])
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: disk)))
        let reference = try Fixtures.referencePCM(path)
        // The disk driver writes silence around the content: align on content
        // (the first non-zero byte of each, as the tone starts at zero).
        let recordedStart = try #require(recorded.firstIndex { $0 != 0 })
        let referenceStart = try #require(reference.firstIndex { $0 != 0 })
        let offset = recordedStart - referenceStart
        #expect(offset >= 0 && offset % 2 == 0)
        #expect(recorded.count >= offset + reference.count)
        let window = Array(recorded[offset..<min(recorded.count, offset + reference.count)])
        let matches = window == reference
        #expect(matches, "the device received the reference PCM exactly")
    }

    @Test(arguments: ["empty.mp4", "garbage.mp3", "text.mp4", "truncated.mp4"])
    func brokenInputEndsWithOneLineAndExit65(_ name: String) throws {
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
            let source = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)))
            try source.prefix(source.count / 3).write(to: URL(fileURLWithPath: path))
        default:
            break
        }
        let result = try Mediaplay.run(["play", path, "--no-audio", "--video-out", folder.path + "/f.txt", "--untimed"])
        #expect(result.status == 65, "\(name): \(result.stderr)")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("mediaplay:") }
        #expect(errors.count == 1, "\(name): \(result.stderr)")
        #expect(!result.stderr.contains("["), "no FFmpeg log lines: \(result.stderr)")
    }
}
