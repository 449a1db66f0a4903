import Foundation
import Testing
import TestKit

/// `play` says what each key changed, for a moment (mpv's OSD messages), and
/// its status line says where the item is in the list.
@Suite struct PlayFeedbackTests {
    @Test func aKeysChangeShowsOnTheStatusLineForAMoment() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await PlayKeysTests.feed(in: folder, count: 2)
        let environment = ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null", "MEDIAPLAY_FEED": feed, "XDG_CACHE_HOME": folder.path + "/cache"]
        let session = try await TerminalSession(columns: 120, rows: 10, [Mediaplay.executable, "play", "1", "--no-video"], environment: environment)
        #expect(await session.shows { $0.joined().contains("1/2 Tone 1") }, "its place in the list")
        await session.send("9")
        let volume = await session.waitForScreen { $0.joined().contains("Volume 95 %") }
        #expect(volume.matched, "\(volume.screen.joined(separator: "\n"))")
        // No subtitles to step to: why, in place of the keys.
        await session.send("j")
        let refused = await session.waitForScreen { $0.joined().contains("the current item has no subtitles") }
        #expect(refused.matched, "\(refused.screen.joined(separator: "\n"))")
        // About two seconds on, the message goes and the keys come back.
        let gone = await session.waitForScreen { $0.joined().contains("q quit") && !$0.joined().contains("no subtitles") }
        #expect(gone.matched, "\(gone.screen.joined(separator: "\n"))")
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
    }
}
