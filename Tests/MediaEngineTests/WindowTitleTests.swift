import Foundation
import MediaEngine
import Testing
import TestKit

/// `play`'s on-screen messages in the window's title, after the item's,
/// through SDL's dummy video driver.
@Suite(.serialized) struct WindowTitleTests {
    init() {
        requireEnvironment("SDL_VIDEODRIVER", "dummy")
    }

    @Test func aMessageFollowsTheTitleUntilItGoes() throws {
        let window = try SDLVideoSink(title: "Film")
        defer { try? window.close() }
        #expect(window.currentTitle == "Film")
        window.showInTitle("Subtitles 2/2 (de)")
        #expect(window.currentTitle == "Film · Subtitles 2/2 (de)")
        window.showInTitle(nil)
        #expect(window.currentTitle == "Film")
    }
}
