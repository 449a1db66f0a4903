import Foundation
import MediaEngine
import Testing
import TestSupport

/// Decoded output checked against the ffmpeg CLI, bit for bit (DESIGN.md §8).
@Suite struct OracleTests {
    /// Plays `path` untimed into file sinks; returns the PCM data and the frame hash lines.
    static func decode(_ path: String, audio: Bool = true, video: Bool = true) throws -> (pcm: [UInt8], hashes: [String], state: PlayerState) {
        let folder = try TemporaryDirectory()
        let wav = folder.path + "/out.wav"
        let hashes = folder.path + "/out.framemd5"
        var options = PlaybackOptions()
        options.clock = .untimed
        let player = Player(
            path: path,
            audioSink: audio ? WAVFileSink(path: wav) : nil,
            videoSink: video ? try FrameHashSink(path: hashes) : nil,
            options: options
        )
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
        let folder = try TemporaryDirectory()
        // The sink itself asks for the pause once a third of a second (44.1 kHz
        // stereo s16) is written, so the pause lands mid-stream every run.
        let audio = PausingSink(wrapping: WAVFileSink(path: folder.path + "/out.wav"), pauseAfterBytes: 44_100 * 4 / 3)
        let video = try FrameHashSink(path: folder.path + "/out.framemd5")
        var options = PlaybackOptions()
        options.clock = .untimed
        let player = Player(path: path, audioSink: audio, videoSink: video, options: options)
        audio.onThreshold = { player.pause() }
        let events = player.events()
        player.play()
        var pauses = 0
        for await event in events {
            guard case .state(.paused) = event else { continue }
            pauses += 1
            let position = player.currentPosition
            let bytes = audio.bytesWritten
            try await Task.sleep(for: .milliseconds(200))
            // Paused means stopped: nothing played, nothing written.
            #expect(player.currentPosition == position)
            #expect(audio.bytesWritten == bytes)
            #expect(position >= 0.33 && position < 1.0, "paused at \(position)")
            player.resume()
        }
        #expect(pauses == 1)
        #expect(player.currentState == .ended)
        let pcm = Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/out.wav")).dropFirst(44))
        #expect(pcm == (try Fixtures.referencePCM(path)))
        let hashes = try String(contentsOfFile: folder.path + "/out.framemd5", encoding: .utf8)
            .split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
        #expect(hashes == (try Fixtures.referenceFrameHashes(path)))
    }
}

/// Passes audio through to another sink, counting bytes, and calls
/// `onThreshold` once when `pauseAfterBytes` have been written.
final class PausingSink: AudioSink, @unchecked Sendable {
    private let inner: any AudioSink
    private let threshold: Int
    private let lock = NSLock()
    private var written = 0
    var onThreshold: (@Sendable () -> Void)?

    init(wrapping inner: any AudioSink, pauseAfterBytes threshold: Int) {
        self.inner = inner
        self.threshold = threshold
    }

    var bytesWritten: Int { lock.withLock { written } }

    func open(format: AudioFormat) throws { try inner.open(format: format) }

    func write(_ samples: UnsafeRawBufferPointer) throws {
        try inner.write(samples)
        let crossed = lock.withLock {
            let before = written
            written += samples.count
            return before < threshold && written >= threshold
        }
        if crossed { onThreshold?() }
    }

    func close() throws { try inner.close() }
}
