import Foundation
import Synchronization
import MediaEngine
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
        let window = Mutex<SDLVideoSink?>(nil)
        let player = Player(path: path, audioSink: nil, options: options) { info, _ in
            let sink = try? SDLVideoSink(title: "test", rotation: info.rotation)
            window.withLock { $0 = sink }
            return sink
        }
        player.play()
        if hold {
            // A picture keeps the player playing until the window is dismissed:
            // that nothing ends it is no event, so a while of it is watched.
            try await Self.windowOpens(window)
            try await Task.sleep(for: .milliseconds(200))
            #expect(player.currentState == .playing)
            player.stop()
        }
        let state = await offPool { player.waitUntilFinished() }
        return (player.mediaInfo, window.withLock { $0?.windowSize }, state)
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
            let window = Mutex<SDLVideoSink?>(nil)
            let player = Player(path: path, audioSink: nil, options: options) { info, player in
                let sink = try? SDLVideoSink(title: "test", rotation: info.rotation)
                // What the session's handler does: it reaches the player only weakly.
                sink?.onInput { [weak player] input in if input == .closed { player?.stop() } }
                window.withLock { $0 = sink }
                return sink
            }
            player.play()
            try await Self.windowOpens(window)
            player.stop()
            _ = await offPool { player.waitUntilFinished() }
            gone = player
            goneWindow = window.withLock { $0 }
            window.withLock { $0 = nil }
        }
        // The player's threads let go of it as they end. Nothing tells when
        // (the engine's threads are not joined, and a weak reference has
        // no observer), so this looks every 10 ms, for 2 s at most.
        for _ in 0..<200 where gone != nil || goneWindow != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(gone == nil, "the player was freed")
        #expect(goneWindow == nil, "the window was freed")
    }

    /// Until the window the player made has opened (5 s at most). SDL's
    /// window thread opens it without telling anyone (the engine has no
    /// event for it), so this looks every 10 ms.
    private static func windowOpens(_ window: borrowing Mutex<SDLVideoSink?>) async throws {
        for _ in 0..<500 where window.withLock({ $0?.windowSize }) == nil { try await Task.sleep(for: .milliseconds(10)) }
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
