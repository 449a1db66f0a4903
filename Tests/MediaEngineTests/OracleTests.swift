import Foundation
import MediaEngine
import Testing
import TestSupport

/// Decoded output checked against the ffmpeg CLI, bit for bit (DESIGN.md §8).
@Suite struct OracleTests {
    /// Plays `path` untimed into file sinks; returns the PCM data and the frame hash lines.
    static func decode(_ path: String, audio: Bool = true, video: Bool = true,
                       control: ((Player) -> Void)? = nil) throws -> (pcm: [UInt8], hashes: [String], state: PlayerState) {
        let folder = try TemporaryDirectory()
        let wav = folder.path + "/out.wav"
        let hashes = folder.path + "/out.framemd5"
        var options = PlaybackOptions()
        options.untimed = true
        let player = Player(
            path: path,
            audioSink: audio ? WAVFileSink(path: wav) : nil,
            videoSink: video ? try FrameHashSink(path: hashes) : nil,
            options: options
        )
        control?(player)
        player.play()
        let state = player.waitUntilFinished()
        let pcm = audio ? Array(((try? Data(contentsOf: URL(fileURLWithPath: wav))) ?? Data()).dropFirst(44)) : []
        let lines = video ? ((try? String(contentsOfFile: hashes, encoding: .utf8)) ?? "").split(separator: "\n").map { String($0.split(separator: " ").last ?? "") } : []
        return (pcm, lines, state)
    }

    @Test(arguments: Fixtures.audioCodecs.map(\.name))
    func audioEqualsFFmpeg(_ name: String) throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == name }!
        let path = try Fixtures.make(fixture.name, fixture.arguments)
        let reference = try Fixtures.referencePCM(path)
        let result = try Self.decode(path, video: false)
        #expect(result.state == .ended)
        #expect(reference.count > 10_000)
        #expect(result.pcm.count == reference.count, "\(name): \(result.pcm.count) bytes vs ffmpeg's \(reference.count)")
        #expect(result.pcm == reference, "\(name): PCM differs from ffmpeg's")
    }

    @Test(arguments: (Fixtures.videoCodecs + Fixtures.images).map(\.name))
    func videoEqualsFFmpeg(_ name: String) throws {
        let fixture = (Fixtures.videoCodecs + Fixtures.images).first { $0.name == name }!
        let path = try Fixtures.make(fixture.name, fixture.arguments)
        let reference = try Fixtures.referenceFrameHashes(path)
        let result = try Self.decode(path, audio: false)
        #expect(result.state == .ended)
        #expect(!reference.isEmpty)
        #expect(result.hashes == reference, "\(name): frame hashes differ from ffmpeg's framemd5")
    }

    @Test func clipWithAudioAndVideo() throws {
        let path = try Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let result = try Self.decode(path)
        #expect(result.pcm == (try Fixtures.referencePCM(path)))
        #expect(result.hashes == (try Fixtures.referenceFrameHashes(path)))
    }

    @Test func pauseAndResumeInTheMiddleChangeNothing() async throws {
        let path = try Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let reference = try Fixtures.referencePCM(path)
        let referenceHashes = try Fixtures.referenceFrameHashes(path)
        let result = try Self.decode(path) { player in
            // Pause as soon as a third of a second has played, check the player
            // really stops, then resume.
            Thread.detachNewThread {
                while player.currentPosition < 0.33 { usleep(200) }
                player.pause()
                while player.currentState != .paused { usleep(200) }
                let held = player.currentPosition
                usleep(200_000)
                precondition(player.currentPosition == held, "position moved while paused")
                player.resume()
            }
        }
        #expect(result.state == .ended)
        #expect(result.pcm == reference)
        #expect(result.hashes == referenceHashes)
    }
}
