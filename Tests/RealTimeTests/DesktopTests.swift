import Foundation
import Testing
import TestKit

/// A deep link played in the background player, in real time.
@Suite struct DesktopTests {
    /// `open mediaplay://item/ID?feed=F` plays that item in the background player.
    @Test func anItemLinkPlaysInTheBackgroundPlayer() async throws {
        let world = try await ToneFeedHome(long: true)
        let opened = try await world.run("open", "mediaplay://item/\(try Self.firstID(world))?feed=\(world.feed)")
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.hasPrefix("▶ playing 1 \"Tone\""), "\(opened.stdout)")
        #expect(try await world.run("status").stdout.hasPrefix("▶ playing 1 \"Tone\""))
        let unknown = try await world.run("open", "mediaplay://item/nope?feed=\(world.feed)")
        #expect(unknown.status == 66, "\(unknown.stderr)")
        let wrong = try await world.run("open", "mediaplay://settings")
        #expect(wrong.status == 64 && wrong.stderr.contains("mediaplay://item/ID"), "\(wrong.stderr)")
        _ = try await world.run("quit")
    }

    static func firstID(_ world: ToneFeedHome) async throws -> String {
        let listed = try JSONDecoder().decode(ListJSON.self, from: Data(try await world.run("list", "--json").stdout.utf8))
        return listed.items[0].id
    }
}
