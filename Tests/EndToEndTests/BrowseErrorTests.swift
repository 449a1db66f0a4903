import Foundation
import Testing
import TestKit

/// How browse says what went wrong, through the background player and in
/// this process. Nothing here is timed, so it runs with the busy phase.
@Suite(.serialized) struct BrowseErrorTests {
    /// A feed of a missing file and a download that fails (404).
    static func brokenFeed(_ world: MixedFeedHome, _ server: TestHTTPServer) throws -> String {
        try world.folder.write("feed.json", """
            {"title": "Broken things", "items": [
             {"type": 1, "title": "Gone", "url": "file://\(world.folder.path)/gone.wav"},
             {"type": 1, "title": "Nowhere", "url": "\(server.url("/nowhere.mp3").absoluteString)"}
            ]}
            """)
    }

    /// Through the background player, a missing local file reads "✗ missing"
    /// (it spun "downloading" for ever).
    @Test func theBackgroundPlayerShowsAMissingFileAsMissing() async throws {
        let world = try await MixedFeedHome()
        let server = try TestHTTPServer()
        world.feed = try Self.brokenFeed(world, server)
        #expect(try await world.run("daemon").status == 0)
        let session = try await world.browse(columns: 80, rows: 24)
        #expect(await session.shows { $0.first?.contains("Broken things") == true })
        await session.send("Space")
        let said = await session.waitForScreen { $0.last?.contains("✗ item 1: no readable file") == true }
        #expect(said.matched, "\(said.screen.joined(separator: "\n"))")
        let screen = await session.waitForScreen { $0.contains { $0.contains("✗ missing") } }.screen
        #expect(screen.contains { $0.contains("✗ missing") } && !screen.joined().contains("downloading"), "\(screen.joined(separator: "\n"))")
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
        _ = try await world.run("quit")
    }

    /// A failed download is said once (the title came twice:
    /// `✗ 2 "Nowhere": "Nowhere": download failed`).
    @Test func aFailedDownloadIsSaidOnce() async throws {
        let world = try await MixedFeedHome()
        let server = try TestHTTPServer()
        world.feed = try Self.brokenFeed(world, server)
        let session = try await world.browse(columns: 80, rows: 24)
        #expect(await session.shows { $0.first?.contains("Broken things") == true })
        await session.send("Right", "Space")
        let failed = await session.waitForScreen { $0.last?.contains("download failed") == true }
        #expect(failed.matched, "\(failed.screen.joined(separator: "\n"))")
        let bar = (failed.screen.last ?? "").trimmingCharacters(in: .whitespaces)
        // The failed state's line (`✗ 2 "Nowhere": …`) or the toggle's error
        // (`✗ item 2 "Nowhere": …`), whichever came last: the title once either way.
        #expect(bar.hasPrefix("✗ ") && bar.contains("\"Nowhere\": download failed: HTTP 404"), "\(bar)")
        #expect(bar.components(separatedBy: "Nowhere").count == 2, "the item named once: \(bar)")
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
    }
}
