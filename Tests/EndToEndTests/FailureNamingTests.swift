import Foundation
import Testing
import InProcessRunner
import TestKit

/// A failure is named by its item and kept to its own row.
@Suite struct FailureNamingTests {
    @Test func aPictureWithNoDisplayNamesTheItemNotTheCacheFile() async throws {
        let server = try TestHTTPServer()
        let picture = try await Fixtures.make("picture.png", Fixtures.images[0].arguments)
        server.serve("/photo.png", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: picture))))
        let world = try await ToneFeedHome(extraItems: #", {"type": "image", "title": "Photo", "url": "\#(server.url("/photo.png").absoluteString)"}"#, long: true)
        var environment = world.environment
        environment["SDL_VIDEODRIVER"] = "offscreen-none"
        environment["DISPLAY"] = ""
        let toggled = try await Mediaplay.runInProcess(["toggle", "3"], environment: environment)
        #expect(toggled.status != 0)
        #expect(toggled.stderr.contains("item 3 \"Photo\""), "\(toggled.stderr)")
        #expect(!toggled.stderr.contains(".png"), "no cache file named: \(toggled.stderr)")
        let status = try await world.runInProcess("status")
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "■ nothing playing", "\(status.stdout)")
        #expect(lines.contains { $0.hasPrefix("  ") && $0.contains("3 \"Photo\"") }, "its own row: \(status.stdout)")
        #expect(lines.last == "feed: \(world.feed)", "\(status.stdout)")
        let other = try world.folder.write("other.json", "[]")
        let elsewhere = try await Mediaplay.runInProcess(["status", "--feed", other], environment: world.environment)
        #expect(elsewhere.stdout.contains("feed: \(world.feed) (not \(other)"), "\(elsewhere.stdout)")
        _ = try await world.runInProcess("quit")
    }
}
