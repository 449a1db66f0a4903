import Foundation
import Testing
import TestKit

/// `play`'s keys on a terminal: through the keymap, whatever stderr is.
@Suite struct PlayKeysTests {
    static func feed(in folder: TemporaryDirectory, count: Int) async throws -> String {
        // A minute each: none may end while the test presses keys.
        let tone = try await Fixtures.make("minute.wav", ["-f", "lavfi", "-i", "sine=duration=60", "-c:a", "pcm_s16le"])
        var items: [String] = []
        for index in 1...count {
            let copy = folder.path + "/tone\(index).wav"
            link(tone, copy)
            items.append(#"{"type": 1, "title": "Tone \#(index)", "url": "file://\#(copy)"}"#)
        }
        return try folder.write("feed.json", "[" + items.joined(separator: ",") + "]")
    }

    /// `>` moves on every time, never quits (it did 4 times in 14: the
    /// skipped item's stop came before the next one's start).
    @Test func nextNeverQuits() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder, count: 5)
        let environment = ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null", "MEDIAPLAY_FEED": feed, "XDG_CACHE_HOME": folder.path + "/cache"]
        let session = try await TerminalSession(columns: 100, rows: 10, [Mediaplay.executable, "play", "1", "--no-video"], environment: environment)
        #expect(await session.shows { $0.joined().contains("Tone 1") && $0.joined().contains("▶") })
        for index in 2...5 {
            await session.send(">")
            let moved = await session.waitForScreen { $0.joined().contains("Tone \(index)") }
            #expect(moved.matched, "> to item \(index): \(moved.screen.joined(separator: "\n"))")
        }
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
    }

    /// With stderr in a file, the keys still work (q quits at once) and the
    /// status line goes to the terminal on stdout.
    @Test func keysWorkWithStderrRedirected() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder, count: 1)
        let environment = ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null", "MEDIAPLAY_FEED": feed, "XDG_CACHE_HOME": folder.path + "/cache"]
        let script = "exec \(TerminalSession.quote(Mediaplay.executable)) play 1 --no-video 2>\(TerminalSession.quote(folder.path + "/err.txt"))"
        let session = try await TerminalSession(columns: 100, rows: 10, ["/bin/sh", "-c", script], environment: environment)
        #expect(await session.shows { $0.joined().contains("Tone 1") }, "the status line shows on stdout's terminal")
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0, "q was read with stderr redirected")
    }
}
