import Foundation
import MediaEngine
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaSession
import MediaWiring
import SessionFakes
import Testing
import TestKit

/// One contract, two players: the engine's `Player` on its virtual clock
/// (a real file decoded to a null output) and the `FakePlayer` the session
/// tests use. What a session test learns from the fake holds for the engine
/// only while both pass these.
struct PlayerConformanceTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case engine
        case fake
        var testDescription: String { rawValue }
    }

    /// A player of a 3 s tone (the fake's media lasts 60 s), not yet playing.
    static func make(_ kind: Kind, start: Double = 0) async throws -> any PlayerHandle {
        let item = FeedItem(position: 1, id: "tone", title: "Tone", kind: .audio, source: .file("/nonexistent"))
        switch kind {
        case .engine:
            let path = try await Fixtures.make("conformance-tone.flac", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3", "-c:a", "flac"])
            let factory = MediaPlayerFactory(clock: .virtual, audio: .sink { NullSink() }, video: .off) { _ in }
            return factory.makePlayer(for: item, input: .file(path), start: start, settings: AudioSettings(), tracks: TrackSettings(), subtitleFiles: []) { _ in }
        case .fake:
            return FakeEngine().makePlayer(for: item, input: .file("/nonexistent"), start: start, settings: AudioSettings(), tracks: TrackSettings(), subtitleFiles: []) { _ in }
        }
    }

    /// Waits (off the pool, up to 10 s) for the player to reach `state`.
    static func reach(_ state: PlayerState, _ player: any PlayerHandle) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await event in player.events() {
                    if case .state(state) = event { return true }
                }
                return player.currentState == state
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let reached = await group.next() ?? false
            group.cancelAll()
            return reached
        }
    }

    static func advance(_ player: any PlayerHandle, by seconds: Double) async {
        await offPool { player.advanceVirtualClock(by: seconds) }
    }

    @Test(arguments: Kind.allCases)
    func eventsTellWhatIsKnownFirstThenPlaying(_ kind: Kind) async throws {
        let player = try await Self.make(kind)
        defer { player.stop() }
        player.play()
        #expect(await Self.reach(.playing, player))
        var first: [PlayerEvent] = []
        for await event in player.events() {
            first.append(event)
            if first.count == 2 { break }
        }
        guard case .opened? = first.first, case .state(.playing)? = first.last else {
            Issue.record("a late subscriber hears opened, then the state: \(first)")
            return
        }
        #expect(player.mediaInfo?.hasAudio == true)
    }

    @Test(arguments: Kind.allCases)
    func timePassesOnlyWhilePlaying(_ kind: Kind) async throws {
        let player = try await Self.make(kind)
        defer { player.stop() }
        player.play()
        #expect(await Self.reach(.playing, player))
        await Self.advance(player, by: 1)
        #expect(abs(player.currentPosition - 1) < 0.05)
        player.pause()
        #expect(player.currentState == .paused)
        await Self.advance(player, by: 1)
        #expect(abs(player.currentPosition - 1) < 0.05, "paused: the clock stands")
        player.resume()
        #expect(await Self.reach(.playing, player))
        await Self.advance(player, by: 0.5)
        #expect(abs(player.currentPosition - 1.5) < 0.05)
    }

    @Test(arguments: Kind.allCases)
    func aPauseBeforePlayHolds(_ kind: Kind) async throws {
        let player = try await Self.make(kind)
        defer { player.stop() }
        player.pause()
        player.play()
        #expect(await Self.reach(.paused, player))
        await Self.advance(player, by: 1)
        #expect(player.currentState == .paused && player.currentPosition < 0.05)
        player.resume()
        #expect(await Self.reach(.playing, player))
    }

    @Test(arguments: Kind.allCases)
    func aStartPositionAndSeeksAreWhereItStands(_ kind: Kind) async throws {
        let player = try await Self.make(kind, start: 1)
        defer { player.stop() }
        player.play()
        #expect(await Self.reach(.playing, player))
        #expect(abs(player.currentPosition - 1) < 0.05)
        player.pause()
        player.seek(to: 2)
        #expect(abs(player.currentPosition - 2) < 0.05, "a seek while paused moves the position at once")
        player.seek(to: -5)
        #expect(player.currentPosition == 0, "clamped to the item")
        player.seek(to: .infinity)
        #expect(player.currentPosition.isFinite)
    }

    @Test(arguments: Kind.allCases)
    func playedPastItsEndItHasEndedAndHearsNoMore(_ kind: Kind) async throws {
        let player = try await Self.make(kind)
        player.play()
        #expect(await Self.reach(.playing, player))
        await Self.advance(player, by: (player.mediaInfo?.duration ?? 60) + 1)
        #expect(await offPool { player.waitUntilFinished() } == .ended)
        // Final: nothing moves it again, and a new subscriber's stream ends.
        player.resume()
        player.seek(to: 0)
        player.stop()
        #expect(player.currentState == .ended)
        var events: [PlayerEvent] = []
        for await event in player.events() { events.append(event) }
        #expect(events.last.map { if case .state(.ended) = $0 { true } else { false } } == true)
    }

    @Test(arguments: Kind.allCases)
    func aStopIsFinal(_ kind: Kind) async throws {
        let player = try await Self.make(kind)
        player.play()
        #expect(await Self.reach(.playing, player))
        player.stop()
        #expect(await offPool { player.waitUntilFinished() } == .stopped)
        player.resume()
        player.seek(to: 1)
        #expect(player.currentState == .stopped)
    }
}
