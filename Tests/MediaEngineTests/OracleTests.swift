import Foundation
import MediaEngine
import MediaInterfaces
import MediaModel
import Synchronization
import Testing
import TestKit

/// Decoded output checked against the ffmpeg CLI, bit for bit (docs/ARCHITECTURE.md, Tests).
@Suite struct OracleTests {
    /// Plays `path` untimed into file sinks; returns the PCM data and the frame hash lines.
    static func decode(_ path: String, audio: Bool = true, video: Bool = true, start: Double = 0) async throws -> (pcm: [UInt8], hashes: [String], state: PlayerState) {
        let folder = try TemporaryDirectory()
        let wav = folder.path + "/out.wav"
        let hashes = folder.path + "/out.framemd5"
        var options = PlaybackOptions()
        options.clock = .untimed
        options.start = start
        let player = Player(
            path: path,
            audioSink: audio ? WAVFileSink(path: wav) : nil,
            videoSink: video ? try FrameHashSink(path: hashes) : nil,
            options: options
        )
        player.play()
        let state = await offPool { player.waitUntilFinished() }
        let pcm = audio ? ((try? Recorded.pcm(wav)) ?? []) : []
        let lines = video ? ((try? Recorded.hashes(hashes)) ?? []) : []
        return (pcm, lines, state)
    }

    /// A player of the clip recording to `out.wav` and `out.framemd5` in
    /// `folder`; its audio sink calls `onThreshold` once `triggerAfterBytes`
    /// are written, so a pause or seek lands mid-stream every run.
    static func clipRecorder(in folder: TemporaryDirectory, clock: PlaybackClock = .untimed, triggerAfterBytes: Int = .max) async throws -> (player: Player, audio: TriggeringSink) {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let audio = TriggeringSink(wrapping: WAVFileSink(path: folder.path + "/out.wav"), triggerAfterBytes: triggerAfterBytes)
        let video = try FrameHashSink(path: folder.path + "/out.framemd5")
        var options = PlaybackOptions()
        options.clock = clock
        return (Player(path: path, audioSink: audio, videoSink: video, options: options), audio)
    }

    /// Every file FFmpeg opens is a regular one: a FIFO is refused before
    /// the open, which would wait for a writer forever (the background
    /// player, probes and browse's pictures all open files through here).
    @Test func aFIFOIsRefusedBeforeItIsOpened() throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.path + "/song.mp3"
        #expect(mkfifo(fifo, 0o600) == 0)
        do {
            _ = try Demuxer(path: fifo)
            Issue.record("a FIFO was opened")
        } catch {
            #expect(error.description == "cannot play song.mp3: it is a FIFO, not a media file")
        }
    }

    @Test(arguments: Fixtures.audioCodecs.map(\.name))
    func audioEqualsFFmpeg(_ name: String) async throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == name }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let reference = try await Fixtures.referencePCM(path)
        let result = try await Self.decode(path, video: false)
        #expect(result.state == .ended)
        #expect(reference.count > 10_000)
        #expect(result.pcm.count == reference.count, "\(name): \(result.pcm.count) bytes vs ffmpeg's \(reference.count)")
        #expect(result.pcm == reference, "\(name): PCM differs from ffmpeg's")
    }

    @Test(arguments: (Fixtures.videoCodecs + Fixtures.images).map(\.name))
    func videoEqualsFFmpeg(_ name: String) async throws {
        let fixture = (Fixtures.videoCodecs + Fixtures.images).first { $0.name == name }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let reference = try await Fixtures.referenceFrameHashes(path)
        let result = try await Self.decode(path, audio: false)
        #expect(result.state == .ended)
        #expect(!reference.isEmpty)
        #expect(result.hashes == reference, "\(name): frame hashes differ from ffmpeg's framemd5")
    }

    @Test func clipWithAudioAndVideo() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let result = try await Self.decode(path)
        #expect(result.pcm == (try await Fixtures.referencePCM(path)))
        #expect(result.hashes == (try await Fixtures.referenceFrameHashes(path)))
    }

    /// `start` seeks exactly, as `ffmpeg -ss` does: output from that time on.
    @Test(arguments: ["tone.wav", "tone.flac", "tone.mp3", "tone.ogg", "tone.m4a", "tone.opus"])
    func startAtEqualsFFmpegSeek(_ name: String) async throws {
        let fixture = Fixtures.audioCodecs.first { $0.name == name }!
        let path = try await Fixtures.make(fixture.name, fixture.arguments)
        let reference = try await Fixtures.referencePCM(path, start: 0.75)
        let result = try await Self.decode(path, video: false, start: 0.75)
        #expect(result.state == .ended)
        #expect(result.pcm.count == reference.count, "\(name): \(result.pcm.count) bytes vs ffmpeg's \(reference.count)")
        #expect(result.pcm == reference, "\(name): PCM after the seek differs from ffmpeg -ss")
    }

    @Test func clipStartAtEqualsFFmpegSeek() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let result = try await Self.decode(path, start: 0.5)
        #expect(result.pcm == (try await Fixtures.referencePCM(path, start: 0.5)))
        #expect(result.hashes == (try await Fixtures.referenceFrameHashes(path, start: 0.5)))
    }

    @Test func pauseAndResumeInTheMiddleChangeNothing() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        // Pause once a third of a second (44.1 kHz stereo s16) is written.
        let (player, audio) = try await Self.clipRecorder(in: folder, triggerAfterBytes: 44_100 * 4 / 3)
        audio.onThreshold = { player.pause() }
        let events = player.events()
        player.play()
        var pauses = 0
        for await event in events {
            guard case .state(.paused) = event else { continue }
            pauses += 1
            let position = player.currentPosition
            let bytes = audio.bytesWritten
            // Nothing happening is no event: a while of it is watched.
            try await Task.sleep(for: .milliseconds(200))
            // Paused means stopped: nothing played, nothing written.
            #expect(player.currentPosition == position)
            #expect(audio.bytesWritten == bytes)
            #expect(position >= 0.33 && position < 1.0, "paused at \(position)")
            player.resume()
        }
        #expect(pauses == 1)
        #expect(player.currentState == .ended)
        let pcm = try Recorded.pcm(folder.path + "/out.wav")
        #expect(pcm == (try await Fixtures.referencePCM(path)))
        let hashes = try Recorded.hashes(folder.path + "/out.framemd5")
        #expect(hashes == (try await Fixtures.referenceFrameHashes(path)))
    }

    /// A seek in the middle: what was played before it is the reference's
    /// beginning, what comes after is exactly `ffmpeg -ss`'s output.
    @Test func seekInTheMiddleLandsExactly() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        // Seek once a quarter of a second is written.
        let (player, audio) = try await Self.clipRecorder(in: folder, triggerAfterBytes: 44_100 * 4 / 4)
        let bytesAtSeek = Mutex(0)
        audio.onThreshold = {
            player.seek(to: 1.25)
            bytesAtSeek.withLock { $0 = audio.bytesWritten }
        }
        player.play()
        #expect(await offPool { player.waitUntilFinished() } == .ended)
        let pcm = try Recorded.pcm(folder.path + "/out.wav")
        let before = bytesAtSeek.withLock { $0 }
        let reference = try await Fixtures.referencePCM(path)
        let afterSeek = try await Fixtures.referencePCM(path, start: 1.25)
        #expect(before > 0 && pcm.count == before + afterSeek.count, "\(pcm.count) bytes = \(before) before the seek + \(pcm.count - before) after; ffmpeg -ss gives \(afterSeek.count)")
        let beginningMatches = Array(pcm.prefix(before)) == Array(reference.prefix(before))
        let restMatches = Array(pcm.dropFirst(before)) == afterSeek
        #expect(beginningMatches, "the audio before the seek differs from the reference")
        #expect(restMatches, "the audio after the seek differs from ffmpeg -ss")

        let hashes = try Recorded.hashes(folder.path + "/out.framemd5")
        let referenceHashes = try await Fixtures.referenceFrameHashes(path)
        let hashesAfterSeek = try await Fixtures.referenceFrameHashes(path, start: 1.25)
        let shownBefore = hashes.count - hashesAfterSeek.count
        #expect(shownBefore >= 0)
        let framesBeforeMatch = Array(hashes.prefix(max(shownBefore, 0))) == Array(referenceHashes.prefix(max(shownBefore, 0)))
        let framesAfterMatch = Array(hashes.suffix(hashesAfterSeek.count)) == hashesAfterSeek
        #expect(framesBeforeMatch && framesAfterMatch, "frames: \(hashes.count) shown, ffmpeg -ss gives \(hashesAfterSeek.count)")
    }

    /// The virtual clock lets exactly the media time asked for play.
    @Test func virtualClockPlaysExactlyWhatIsAdvanced() async throws {
        let path = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        let (player, _) = try await Self.clipRecorder(in: folder, clock: .virtual)
        player.play()
        await offPool { player.advanceVirtualClock(by: 0.5) }
        #expect(abs(player.currentPosition - 0.5) < 1e-9)
        player.pause()
        await offPool { player.advanceVirtualClock(by: 5) }  // paused: no media time passes
        #expect(abs(player.currentPosition - 0.5) < 1e-9)
        player.resume()
        await offPool { player.advanceVirtualClock(by: 0.25) }
        #expect(abs(player.currentPosition - 0.75) < 1e-9)
        player.stop()
        _ = await offPool { player.waitUntilFinished() }
        let pcm = try Recorded.pcm(folder.path + "/out.wav")
        let reference = try await Fixtures.referencePCM(path)
        let matches = pcm == Array(reference.prefix(44_100 * 4 * 3 / 4))
        #expect(matches, "\(pcm.count) bytes written for 0.75 s")
        // 25 fps: the frames at 0.00 ... 0.72 s, and exactly those.
        let hashes = try Recorded.hashes(folder.path + "/out.framemd5")
        #expect(hashes == Array(try await Fixtures.referenceFrameHashes(path).prefix(19)))
    }
}

/// Passes audio through to another sink, counting bytes, and calls
/// `onThreshold` once when `triggerAfterBytes` have been written.
final class TriggeringSink: AudioSink, @unchecked Sendable {
    private let inner: any AudioSink
    private let threshold: Int
    private let lock = NSLock()
    private var written = 0
    var onThreshold: (@Sendable () -> Void)?

    init(wrapping inner: any AudioSink, triggerAfterBytes threshold: Int) {
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
