import Foundation
import Synchronization
import MediaEngine
import MediaInterfaces
import MediaModel
import Testing
import TestKit

/// The SDL window through SDL's dummy video driver: sizes, rotation, a
/// picture held on screen until dismissed.
@Suite(.serialized) struct WindowTests {
    init() {
        requireEnvironment("SDL_VIDEODRIVER", "dummy")
    }

    /// Plays `path` to a window (no audio), in real time; returns the info and the window's size.
    private func show(_ path: String, hold: Bool = false) async throws -> (info: MediaInfo?, size: (width: Int, height: Int)?, state: PlayerState) {
        var options = PlaybackOptions()
        options.audio = false
        let window = WindowSlot()
        let player = Player(path: path, audioSink: nil, options: options) { info, _ in
            let sink = try? SDLVideoSink(title: "test", rotation: info.rotation)
            window.set(sink)
            return sink
        }
        player.play()
        if hold {
            // A picture keeps the player playing until the window is dismissed:
            // that nothing ends it is no event, so a while of it is watched.
            #expect(await window.opens())
            try await Task.sleep(for: .milliseconds(200))
            #expect(player.currentState == .playing)
            player.stop()
        }
        let state = await offPool { player.waitUntilFinished() }
        return (player.mediaInfo, window.sink?.windowSize, state)
    }

    /// A window whose keys drive its player does not keep the player (and
    /// itself) alive: the background player leaked both on every image
    /// toggle (11 KB each, 10 MB over 1,000).
    @Test func aWindowDoesNotKeepItsPlayerAlive() async throws {
        let path = try await Fixtures.make("picture.png", Fixtures.images[0].arguments)
        weak var gone: Player?
        weak var goneWindow: SDLVideoSink?
        do {
            var options = PlaybackOptions()
            options.audio = false
            let window = WindowSlot()
            let player = Player(path: path, audioSink: nil, options: options) { info, player in
                let sink = try? SDLVideoSink(title: "test", rotation: info.rotation)
                // What the session's handler does: it reaches the player only weakly.
                sink?.onInput { [weak player] input in if input == .closed { player?.stop() } }
                window.set(sink)
                return sink
            }
            player.play()
            #expect(await window.opens())
            player.stop()
            _ = await offPool { player.waitUntilFinished() }
            gone = player
            goneWindow = window.sink
            window.set(nil)
        }
        // The player's threads let go of it as they end. Nothing tells when
        // (the engine's threads are not joined, and a weak reference has
        // no observer), so this looks every 10 ms, for 2 s at most.
        for _ in 0..<200 where gone != nil || goneWindow != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(gone == nil, "the player was freed")
        #expect(goneWindow == nil, "the window was freed")
    }

    /// Where the player's factory puts the window it makes (on the
    /// player's thread), for the test to wait on: the window's making, then
    /// its opening (`SDLVideoSink.waitUntilOpen`), 5 s at most.
    final class WindowSlot: @unchecked Sendable {
        private let condition = NSCondition()
        private var made: SDLVideoSink?

        var sink: SDLVideoSink? { condition.withLock { made } }

        func set(_ sink: SDLVideoSink?) {
            condition.withLock {
                made = sink
                condition.broadcast()
            }
        }

        func opens() async -> Bool {
            await offPool { [self] in
                let deadline = Date(timeIntervalSinceNow: 5)
                let sink = condition.withLock { () -> SDLVideoSink? in
                    while made == nil, condition.wait(until: deadline) {}
                    return made
                }
                return sink?.waitUntilOpen(timeout: max(0, deadline.timeIntervalSinceNow)) ?? false
            }
        }
    }

    @Test func portraitVideoIsShownUpright() async throws {
        let path = try await Fixtures.portraitVideo()
        let shown = try await show(path)
        #expect(shown.state == .ended)
        // The same turn ffmpeg's autorotate makes for this file (transpose=cclock).
        #expect(shown.info?.rotation == 270)
        // Stored 160×120, shown 120×160.
        #expect(shown.size?.width == 120 && shown.size?.height == 160, "window \(String(describing: shown.size))")
    }

    @Test func wideImageFitsTheScreenWithItsAspect() async throws {
        let path = try await Fixtures.make(Fixtures.panorama.name, Fixtures.panorama.arguments)
        let shown = try await show(path, hold: true)
        #expect(shown.info?.isImage == true)
        // Dismissed by stop(): cut short, not played to an end.
        #expect(shown.state == .stopped)
        // The dummy display is 1024×768: 3000×500 becomes 1024×170.
        #expect(shown.size?.width == 1024 && shown.size?.height == 170, "window \(String(describing: shown.size))")
    }
}
