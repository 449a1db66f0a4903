import Foundation
import MediaEngine
import MediaInterfaces
import Testing
import TestKit

/// Pictures and sound from two files (a site's best video and best audio,
/// issue 46) play as one item: every frame as ffmpeg decodes the video
/// file, every sample as it decodes the audio file, and a start lands
/// exactly in both, as `ffmpeg -ss` does in each.
@Suite struct SeparateInputsTests {
    static func parts() async throws -> (video: String, audio: String) {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let video = try await Fixtures.make("clip-video-only.mp4", ["-i", clip, "-map", "0:v", "-c", "copy"])
        let audio = try await Fixtures.make("clip-audio-only.m4a", ["-i", clip, "-map", "0:a", "-c", "copy"])
        return (video, audio)
    }

    static func play(video: String, audio: String, start: Double) async throws -> (pcm: [UInt8], hashes: [String], state: PlayerState) {
        let folder = try TemporaryDirectory()
        let wav = folder.path + "/out.wav"
        let frames = folder.path + "/out.framemd5"
        var options = PlaybackOptions()
        options.clock = .untimed
        options.start = start
        let sink = try FrameHashSink(path: frames)
        let player = Player(input: .separate(video: .file(video), audio: .file(audio)), audioSink: WAVFileSink(path: wav), options: options) { _, _ in sink }
        player.play()
        let state = await offPool { player.waitUntilFinished() }
        return ((try? Recorded.pcm(wav)) ?? [], (try? Recorded.hashes(frames)) ?? [], state)
    }

    @Test(arguments: [0, 0.5])
    func bothPlayAsFFmpegDecodesEach(_ start: Double) async throws {
        let (video, audio) = try await Self.parts()
        let result = try await Self.play(video: video, audio: audio, start: start)
        #expect(result.state == .ended)
        let seek: Double? = start > 0 ? start : nil
        #expect(result.pcm == (try await Fixtures.referencePCM(audio, start: seek)), "the audio file's samples")
        #expect(result.hashes == (try await Fixtures.referenceFrameHashes(video, start: seek)), "the video file's frames")
    }
}
