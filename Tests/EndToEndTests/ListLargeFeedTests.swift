import Foundation
import Testing
import TestKit

/// `list --json` of a large feed is written in pieces made on two threads
/// (`PiecesInOrder`): one valid document, every item once, in order.
@Suite struct ListLargeFeedTests {
    @Test func aLargeListIsOneDocumentInOrder() async throws {
        let folder = try TemporaryDirectory()
        let count = 1_730
        var text = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title>"#
        for number in 1...count {
            text += #"<item><title>Episode \#(number)</title><guid>e\#(number)</guid><enclosure url="https://example.org/\#(number).mp3" type="audio/mpeg"/></item>"#
        }
        let feed = try folder.write("big.xml", text + "</channel></rss>")
        let list = try await Mediaplay.run(["list", "--json", "--feed", feed, "--cache-dir", folder.path + "/cache"])
        #expect(list.status == 0, "\(list.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.map { $0["position"] as? Int } == (1...count).map { $0 })
        #expect(items.map { $0["title"] as? String } == (1...count).map { "Episode \($0)" })
        #expect(document["schema"] as? String == "mediaplay.list/2")
        #expect(list.stdout.hasSuffix("}\n"))
    }
}
