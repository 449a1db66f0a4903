@testable import MediaEngine
import Foundation
import Testing
import TestKit

/// The played time a real SDL device reports (SDL's disk driver, writing to
/// /dev/null) across a seek's flush: samples dropped unheard never count.
/// The player's clock follows this count, so a count with the dropped
/// samples in it put the position seconds ahead of what was heard (a seek
/// just after a start read 00:13 for 00:10).
@Suite(.serialized) struct AudioDeviceClockTests {
    static let format = AudioFormat(sampleRate: 44100, channels: 1)

    init() {
        // Only this suite opens an audio device in the unit tests' process.
        requireEnvironment("SDL_AUDIODRIVER", "disk")
        requireEnvironment("SDL_DISKAUDIOFILE", "/dev/null")
    }

    /// `seconds` of silence, written as a decoder writes.
    static func write(_ seconds: Double, to sink: SDLAudioSink) throws {
        let bytes = [UInt8](repeating: 0, count: Int(seconds * Double(format.sampleRate)) * format.bytesPerFrame)
        try bytes.withUnsafeBytes { try sink.write($0) }
    }

    /// Waits until the device has taken something of what is queued: looked
    /// at each time SDL's disk driver writes what it took to its file (the
    /// kernel tells: inotify; other processes' writes to /dev/null only
    /// make it look once more).
    static func deviceTakes(from sink: SDLAudioSink) async throws {
        let queued = sink.queuedSeconds
        let file = getenv("SDL_DISKAUDIOFILE").map { String(cString: $0) } ?? "/dev/null"
        try await Wait.until(changesAt: file, timeout: 10) { sink.queuedSeconds < queued }
        #expect(sink.queuedSeconds < queued, "the device reads")
    }

    @Test func aFlushBeforeTheDeviceFirstReadsIsNotCounted() async throws {
        let sink = try SDLAudioSink()
        defer { sink.discard() }
        try sink.open(format: Self.format)
        // Paused: the device does not start, as when a seek comes before
        // its first read.
        sink.pause()
        try Self.write(2, to: sink)
        sink.flush()
        sink.resume()
        try Self.write(0.5, to: sink)
        try await Self.deviceTakes(from: sink)
        let played = try #require(sink.playedSeconds)
        #expect(played <= 0.5, "at most what was written after the flush, not \(played) s")
    }

    @Test func aFlushWhileTheDevicePlaysStartsTheCountAgain() async throws {
        let sink = try SDLAudioSink()
        defer { sink.discard() }
        try sink.open(format: Self.format)
        try Self.write(1, to: sink)
        try await Self.deviceTakes(from: sink)
        sink.flush()
        #expect(sink.playedSeconds == 0, "nothing written since the flush is heard yet")
        try Self.write(0.25, to: sink)
        try await Self.deviceTakes(from: sink)
        let played = try #require(sink.playedSeconds)
        #expect(played <= 0.25, "at most what was written after the flush, not \(played) s")
    }
}
