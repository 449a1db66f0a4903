import Foundation
import MediaCache
import MediaEngine
import MediaInterfaces
import MediaModel
import Synchronization
import Testing
import TestKit

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

    /// One test's world: a file served by a loopback server, and a cache
    /// in a fresh folder.
    final class Scene {
        let path: String
        let name: String
        let size: Int
        let server: TestHTTPServer
        let cache: MediaCache
        private let home: TemporaryDirectory

        init(_ path: String) throws {
            self.path = path
            name = "/" + (path as NSString).lastPathComponent
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            size = bytes.count
            server = try TestHTTPServer()
            server.serve(name, bytes: bytes)
            home = try TemporaryDirectory()
            var configuration = CacheConfiguration()
            configuration.retryDelay = 0.05
            cache = try MediaCache(directory: home.path + "/cache", configuration: configuration)
        }

        /// A progressive clip (see `Fixtures.streamingClip`).
        convenience init(faststart: Bool) async throws {
            let clip = Fixtures.streamingClip(faststart: faststart)
            try self.init(try await Fixtures.make(clip.name, clip.arguments))
        }

        var url: URL { server.url(name) }

        /// A ranged request started past the middle of the file.
        var rangedPastTheMiddle: Bool {
            server.requests(name).compactMap { $0.headers["range"] }
                .contains { range in Int(range.dropFirst(6).prefix { $0.isNumber }).map { $0 > size / 2 } ?? false }
        }

        /// Waits for the download to end; whether the entry is the file.
        func entryEqualsTheFile() async throws -> Bool {
            FileManager.default.contentsEqual(atPath: try await cache.fetch(url), andPath: path)
        }

        /// Plays the file from the cache while it downloads at
        /// `bytesPerSecond`, into file sinks.
        func play(
            bytesPerSecond: Int, clock: PlaybackClock = .untimed, start: Double = 0, video: Bool = true,
            faults: [TestHTTPServer.Fault] = [], holdAfter: Int? = nil, releaseWhenBuffering: Bool = false
        ) async throws -> Outcome {
            server.throttle(name, bytesPerSecond: bytesPerSecond)
            // Held, the main transfer cannot end before the output starts (or
            // playback buffers): "before the transfer ends" without timing.
            if let holdAfter { server.inject(name, [.holdAfter(holdAfter)]) }
            if !faults.isEmpty { server.inject(name, faults) }
            let (server, cache, name, url) = (server, cache, name, url)
            let folder = try TemporaryDirectory()
            let reader = try cache.open(url)
            var options = PlaybackOptions()
            options.clock = clock
            options.start = start
            let player = Player(
                input: .source(reader), audioSink: WAVFileSink(path: folder.path + "/out.wav"), options: options
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
            let state = await offPool { player.waitUntilFinished() }
            return Outcome(
                pcm: (try? Recorded.pcm(folder.path + "/out.wav")) ?? [],
                hashes: video ? ((try? Recorded.hashes(folder.path + "/out.framemd5")) ?? []) : [],
                state: state, startedBeforeDownloadEnded: early.withLock { $0 } ?? false,
                states: states.withLock { $0 }, reader: reader
            )
        }
    }

    @Test func faststartClipPlaysWhileDownloadingAndEqualsFFmpeg() async throws {
        let scene = try await Scene(faststart: true)
        let outcome = try await scene.play(bytesPerSecond: scene.size / 2, holdAfter: scene.size * 2 / 5)
        #expect(outcome.state == .ended)
        #expect(outcome.startedBeforeDownloadEnded)
        #expect(outcome.pcm == (try await Fixtures.referencePCM(scene.path)))
        #expect(outcome.hashes == (try await Fixtures.referenceFrameHashes(scene.path)))
        // Still one transfer, and the finished entry is the file.
        #expect(try await scene.entryEqualsTheFile())
        #expect(scene.server.getCount(scene.name) == 1)
        #expect(outcome.reader.bytesFetched == Int64(scene.size))
    }

    @Test func indexAtTheEndIsFetchedWithARangedTransfer() async throws {
        let scene = try await Scene(faststart: false)
        let outcome = try await scene.play(bytesPerSecond: scene.size / 2, holdAfter: scene.size * 2 / 5)
        #expect(outcome.state == .ended)
        #expect(outcome.startedBeforeDownloadEnded)
        #expect(outcome.pcm == (try await Fixtures.referencePCM(scene.path)))
        #expect(outcome.hashes == (try await Fixtures.referenceFrameHashes(scene.path)))
        #expect(try await scene.entryEqualsTheFile())
        // The index came by a ranged request near the end; nothing twice.
        #expect(scene.rangedPastTheMiddle)
        #expect(outcome.reader.bytesFetched == Int64(scene.size))
    }

    @Test func startingFarInFetchesThatRangeFirstAndLandsExactly() async throws {
        let scene = try await Scene(faststart: true)
        // The main transfer is held far behind 4.5 s in.
        let outcome = try await scene.play(bytesPerSecond: scene.size / 2, start: 4.5, holdAfter: scene.size / 5)
        #expect(outcome.state == .ended)
        #expect(outcome.startedBeforeDownloadEnded)
        #expect(outcome.pcm == (try await Fixtures.referencePCM(scene.path, start: 4.5)))
        #expect(outcome.hashes == (try await Fixtures.referenceFrameHashes(scene.path, start: 4.5)))
        #expect(scene.rangedPastTheMiddle, "\(scene.server.requests(scene.name).compactMap { $0.headers["range"] }) of \(scene.size)")
        #expect(try await scene.entryEqualsTheFile())
        #expect(outcome.reader.bytesFetched == Int64(scene.size))
    }

    @Test func aResetMidStreamResumesAndPlaybackGoesOn() async throws {
        let scene = try await Scene(faststart: true)
        let outcome = try await scene.play(bytesPerSecond: scene.size / 2, faults: [.resetAfter(scene.size / 3)])
        #expect(outcome.state == .ended)
        #expect(outcome.pcm == (try await Fixtures.referencePCM(scene.path)))
        #expect(outcome.hashes == (try await Fixtures.referenceFrameHashes(scene.path)))
        #expect(scene.server.getCount(scene.name) == 2)
    }

    /// q while the reader waits for the network is a stop, not a download
    /// that failed (the player flags the stop before it interrupts the wait,
    /// so this holds whichever thread runs first).
    @Test func aStopWhileWaitingForTheNetworkIsAStop() async throws {
        let scene = try await Scene(faststart: true)
        scene.server.inject(scene.name, [.holdAfter(scene.size / 3)])
        let reader = try scene.cache.open(scene.url)
        var options = PlaybackOptions()
        options.clock = .untimed
        let source = WaitTellingSource(reader)
        let player = Player(input: .source(source), audioSink: NullSink(), options: options) { _, _ in nil }
        player.play()
        // Untimed, it reads the third at once and then waits at the hold.
        #expect(await scene.server.waitUntilSent(scene.name, atLeast: scene.size / 3))
        #expect(await offPool { source.waitUntilWaiting(timeout: 30) }, "the reader waits for the network")
        player.stop()
        #expect(await offPool { player.waitUntilFinished() } == .stopped)
        #expect(!player.failedForInput)
        scene.server.release(scene.name)
    }

    @Test func aServerGoneForGoodEndsPlaybackWithADownloadError() async throws {
        let scene = try await Scene(faststart: true)
        scene.server.throttle(scene.name, bytesPerSecond: scene.size / 2)
        scene.server.inject(scene.name, [.holdAfter(scene.size / 3)])
        let reader = try scene.cache.open(scene.url)
        _ = try reader.size()
        // A third arrives, then the server goes for good.
        scene.server.goAway()
        var options = PlaybackOptions()
        options.clock = .untimed
        let player = Player(input: .source(reader), audioSink: NullSink(), options: options) { _, _ in nil }
        player.play()
        let state = await offPool { player.waitUntilFinished() }
        guard state == .failed, let message = player.failure else {
            Issue.record("expected a failure, got \(state)")
            return
        }
        #expect(message.hasPrefix("download of progressive-faststart.mp4 failed: "))
        #expect(player.failedForInput)
        // The part downloaded stays, resumable.
        guard case let .failed(_, received) = scene.cache.status(for: scene.url) else {
            Issue.record("expected a failed entry")
            return
        }
        #expect(received > 0)
    }

    @Test func aSlowLinkBuffersThenResumesWithEverySample() async throws {
        // Half the file comes, then the link stalls until playback has
        // run dry and is buffering; then the rest comes.
        let wav = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let scene = try Scene(try await Fixtures.make(wav.name, wav.arguments))
        let outcome = try await scene.play(
            bytesPerSecond: 0, clock: .realTime, video: false, holdAfter: scene.size / 2, releaseWhenBuffering: true
        )
        #expect(outcome.state == .ended)
        let buffering = outcome.states.firstIndex(of: .buffering)
        #expect(buffering != nil, "states: \(outcome.states)")
        if let buffering { #expect(outcome.states[buffering...].contains(.playing)) }
        // Held, not dropped: every sample, in order.
        #expect(outcome.pcm == (try await Fixtures.referencePCM(scene.path)))
    }
}

/// A cache reader that also tells the test when a read starts waiting for
/// bytes not there yet (the player's own `onWait` still gets every call).
final class WaitTellingSource: ByteSource {
    let reader: CacheReader
    private let waits = NSCondition()
    nonisolated(unsafe) private var waited = false

    init(_ reader: CacheReader) { self.reader = reader }

    var name: String { reader.name }
    var onWait: (@Sendable (Bool) -> Void)? {
        get { reader.onWait }
        set {
            reader.onWait = { [waits, weak self] waiting in
                newValue?(waiting)
                guard waiting, let self else { return }
                waits.withLock { self.waited = true; waits.broadcast() }
            }
        }
    }
    var isLive: Bool { reader.isLive }
    var seeksByEstimate: Bool { reader.seeksByEstimate }
    func size() throws -> Int64? { try reader.size() }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int { try reader.read(into: buffer, at: offset) }
    func interrupt() { reader.interrupt() }

    /// Blocks (off the pool) until a read has waited; false after `timeout` seconds.
    func waitUntilWaiting(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return waits.withLock {
            while !waited { if !waits.wait(until: deadline) { return waited } }
            return true
        }
    }
}
