import Foundation
import MediaState
import Testing
import TestKit

/// The rule a list made as a server's pages come uses for `new` (known
/// before the items are) calls new exactly what the feed's read then
/// records as new: for a first read, a read with ids never seen, ids marked
/// old, and ids gone and back.
struct NewItemsRuleTests {
    @Test func theRuleCallsNewWhatTheReadRecordsAsNew() throws {
        let scratch = try TemporaryDirectory()
        let store = try StateStore(path: scratch.path + "/positions.sqlite")
        let feed = "upnp+http://nas.local:8200/rootDesc.xml"
        // Each read's ids, and what it makes new.
        let reads: [(ids: [String], new: Set<String>)] = [
            (["a", "b", "c"], []),
            (["a", "b", "c", "d", "e"], ["d", "e"]),
            (["a", "c", "d", "e", "f"], ["e", "f"]),
            (["b", "d", "g"], ["g"]),
            (["b", "d", "g"], ["g"]),
        ]
        #expect(store.newItemsRule(in: feed) == nil, "never read: nothing is new")
        for (number, read) in reads.enumerated() {
            let rule = store.newItemsRule(in: feed)
            let recorded = try store.newItems(in: feed, ids: read.ids)
            #expect(recorded == read.new, "read \(number + 1)")
            #expect(Set(read.ids.filter { rule?.isNew($0) == true }) == recorded, "read \(number + 1)")
            // Marked old after its second read.
            if number == 1 { try store.markSeen(in: feed, ids: ["d"]) }
        }
    }
}
