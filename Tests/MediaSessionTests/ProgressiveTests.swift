import Foundation
import MediaCache
import MediaEngine
import Synchronization
import Testing
import TestSupport

/// Playing a download while it runs, over a throttled loopback server: the
/// output starts before the transfer ends and still equals ffmpeg's
/// decoding of the whole file, bit for bit.
@Suite struct ProgressiveTests {
    struct Outcome {
        var pcm: [UInt8]
        var hashes: [String]
        var state: PlayerState
        /// The entry was still incomplete when the first output came.
        var startedBeforeDownloadEnded: Bool
        var states: [PlayerState]
        /// What played; `bytesFetched` is the size when nothing came twice.
        var reader: CacheReader
    }

    /// Serves `path` at `bytesPerSecond` and plays it from the cache while
    /// it downloads, into file sinks.
    static func play(
        _ path: String, server: TestHTTPServer, cache: MediaCache, bytesPerSecond: Int, clock: PlaybackClock = .untimed,
        start: Double = 0, video: Bool = true, faults: [TestHTTPServer.Fault] = [],
        holdAfter: Int? = nil, releaseWhenBuffering: Bool = false
    ) async throws -> Outcome {
        let name = "/" + (path as NSString).lastPathComponent
        server.serve(name, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        server.throttle(name, bytesPerSecond: bytesPerSecond)
        // Held, the main transfer cannot end before the output starts (or
        // playback buffers): "before the transfer ends" without timing.
        if let holdAfter { server.inject(name, [.holdAfter(holdAfter)]) }
        if !faults.isEmpty { server.inject(name, faults) }
        let url = server.url(name)
        let folder = try TemporaryDirectory()
        let reader = try cache.open(url)
        var options = PlaybackOptions()
        options.clock = clock
        options.start = start
        let player = Player(
            source: reader, audioSink: WAVFileSink(path: folder.path + "/out.wav"), options: options
        ) { _, _ in video ? try? FrameHashSink(path: folder.path + "/out.framemd5") : nil }
        let early = Mutex<Bool?>(nil)
        let states = Mutex<[PlayerState]>([])
        let events = player.events()
        player.play()
        for await event in events {
            switch event {
            case .position:
                let first = early.withLock { value -> Bool in
                    guard value == nil else { return false }
                    value = cache.cachedFile(for: url) == nil
                    return true
                }
                if first && !releaseWhenBuffering { server.release(name) }
            case let .state(state):
                states.withLock { $0.append(state) }
                if state == .buffering && releaseWhenBuffering { server.release(name) }
            default:
                break
            }
        }
        let state = player.waitUntilFinished()
        return Outcome(
            pcm: (try? Recorded.pcm(folder.path + "/out.wav")) ?? [],
            hashes: video ? ((try? Recorded.hashes(folder.path + "/out.framemd5")) ?? []) : [],
            state: state, startedBeforeDownloadEnded: early.withLock { $0 } ?? false,
            states: states.withLock { $0 }, reader: reader
        )
    }

    static func fixture(faststart: Bool) throws -> String {
        let clip = Fixtures.streamingClip(faststart: faststart)
        return try Fixtures.make(clip.name, clip.arguments)
    }

    static func cache() throws -> (TemporaryDirectory, MediaCache) {
        let folder = try TemporaryDirectory()
        var configuration = CacheConfiguration()
        configuration.retryDelay = 0.05
        return (folder, try MediaCache(directory: folder.path + "/cache", configuration: configuration))
    }

    @Test func faststartClipPlaysWhileDownloadingAndEqualsFFmpeg() async throws {
        let path = try Self.fixture(faststart: true)
        let server = try TestHTTPServer()
        let (home, cache) = try Self.cache()
        defer { withExtendedLifetime(home) {} }
        let size = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64)
        let outcome = try await Self.play(path, server: server, cache: cache, bytesPerSecond: size / 2, holdAfter: size * 2 / 5)
        #expect(outcome.state == .ended)
        #expect(outcome.startedBeforeDownloadEnded)
        #expect(outcome.pcm == (try Fixtures.referencePCM(path)))
        #expect(outcome.hashes == (try Fixtures.referenceFrameHashes(path)))
        // Still one transfer, and the finished entry is the file.
        let entry = try await cache.fetch(server.url("/" + (path as NSString).lastPathComponent))
        #expect(FileManager.default.contentsEqual(atPath: entry, andPath: path))
        #expect(server.getCount("/progressive-faststart.mp4") == 1)
    }

    @Test func indexAtTheEndIsFetchedWithARangedTransfer() async throws {
        let path = try Self.fixture(faststart: false)
        let name = "/" + (path as NSString).lastPathComponent
        let server = try TestHTTPServer()
        let (home, cache) = try Self.cache()
        defer { withExtendedLifetime(home) {} }
        let size = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64)
        let outcome = try await Self.play(path, server: server, cache: cache, bytesPerSecond: size / 2, holdAfter: size * 2 / 5)
        #expect(outcome.state == .ended)
        #expect(outcome.startedBeforeDownloadEnded)
        #expect(outcome.pcm == (try Fixtures.referencePCM(path)))
        #expect(outcome.hashes == (try Fixtures.referenceFrameHashes(path)))
        let entry = try await cache.fetch(server.url(name))
        #expect(FileManager.default.contentsEqual(atPath: entry, andPath: path))
        // The index came by a ranged request near the end; nothing twice.
        let ranged = server.requests(name).compactMap { $0.headers["range"] }
        #expect(ranged.contains { range in Int(range.dropFirst(6).prefix { $0.isNumber }).map { $0 > size / 2 } ?? false })
        #expect(outcome.reader.bytesFetched == Int64(size))
    }

    @Test func startingFarInFetchesThatRangeFirstAndLandsExactly() async throws {
        let path = try Self.fixture(faststart: true)
        let name = "/" + (path as NSString).lastPathComponent
        let server = try TestHTTPServer()
        let (home, cache) = try Self.cache()
        defer { withExtendedLifetime(home) {} }
        let size = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64)
        // The main transfer is held far behind 4.5 s in.
        let outcome = try await Self.play(path, server: server, cache: cache, bytesPerSecond: size / 2, start: 4.5, holdAfter: size / 5)
        #expect(outcome.state == .ended)
        #expect(outcome.startedBeforeDownloadEnded)
        #expect(outcome.pcm == (try Fixtures.referencePCM(path, start: 4.5)))
        #expect(outcome.hashes == (try Fixtures.referenceFrameHashes(path, start: 4.5)))
        let ranged = server.requests(name).compactMap { $0.headers["range"] }
        #expect(ranged.contains { range in Int(range.dropFirst(6).prefix { $0.isNumber }).map { $0 > size / 2 } ?? false }, "\(ranged) of \(size)")
        let entry = try await cache.fetch(server.url(name))
        #expect(FileManager.default.contentsEqual(atPath: entry, andPath: path))
        #expect(outcome.reader.bytesFetched == Int64(size))
    }

    @Test func aResetMidStreamResumesAndPlaybackGoesOn() async throws {
        let path = try Self.fixture(faststart: true)
        let name = "/" + (path as NSString).lastPathComponent
        let server = try TestHTTPServer()
        let (home, cache) = try Self.cache()
        defer { withExtendedLifetime(home) {} }
        let size = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64)
        let outcome = try await Self.play(path, server: server, cache: cache, bytesPerSecond: size / 2, faults: [.resetAfter(size / 3)])
        #expect(outcome.state == .ended)
        #expect(outcome.pcm == (try Fixtures.referencePCM(path)))
        #expect(outcome.hashes == (try Fixtures.referenceFrameHashes(path)))
        #expect(server.getCount(name) == 2)
    }

    @Test func aServerGoneForGoodEndsPlaybackWithADownloadError() async throws {
        let path = try Self.fixture(faststart: true)
        let name = "/" + (path as NSString).lastPathComponent
        let server = try TestHTTPServer()
        let (home, cache) = try Self.cache()
        defer { withExtendedLifetime(home) {} }
        let size = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64)
        server.serve(name, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        server.throttle(name, bytesPerSecond: size / 2)
        server.inject(name, [.holdAfter(size / 3)])
        let reader = try cache.open(server.url(name))
        _ = try reader.size()
        // A third arrives, then the server goes for good.
        server.goAway()
        var options = PlaybackOptions()
        options.clock = .untimed
        let player = Player(source: reader, audioSink: NullSink(), options: options) { _, _ in nil }
        player.play()
        let state = await Task.detached { player.waitUntilFinished() }.value
        guard case let .failed(message) = state else {
            Issue.record("expected a failure, got \(state)")
            return
        }
        #expect(message.hasPrefix("download of progressive-faststart.mp4 failed: "))
        #expect(player.failedForInput)
        // The part downloaded stays, resumable.
        guard case let .failed(_, received) = cache.status(for: server.url(name)) else {
            Issue.record("expected a failed entry")
            return
        }
        #expect(received > 0)
    }

    @Test func aSlowLinkBuffersThenResumesWithEverySample() async throws {
        // Half the file comes, then the link stalls until playback has
        // run dry and is buffering; then the rest comes.
        let wav = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let path = try Fixtures.make(wav.name, wav.arguments)
        let server = try TestHTTPServer()
        let (home, cache) = try Self.cache()
        defer { withExtendedLifetime(home) {} }
        let size = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64)
        let outcome = try await Self.play(
            path, server: server, cache: cache, bytesPerSecond: 0, clock: .realTime, video: false,
            holdAfter: size / 2, releaseWhenBuffering: true
        )
        #expect(outcome.state == .ended)
        let buffering = outcome.states.firstIndex(of: .buffering)
        #expect(buffering != nil, "states: \(outcome.states)")
        if let buffering { #expect(outcome.states[buffering...].contains(.playing)) }
        // Held, not dropped: every sample, in order.
        #expect(outcome.pcm == (try Fixtures.referencePCM(path)))
    }
}
