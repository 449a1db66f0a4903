@testable import MediaSession
import MediaModel
import Testing

/// Announced states alone: a `state` event exactly when the state changed.
@Suite struct AnnouncementsTests {
    func status(_ key: ItemKey, _ state: ItemState) -> ItemStatus {
        ItemStatus(item: 1, id: key, title: "T", kind: .audio, state: state, position: 0)
    }

    @Test func aStateEventMeansAChange() {
        var announced = Announcements()
        #expect(announced.event(.position, status("a", .playing))?.event == .state, "a change is a state event, whatever happened")
        #expect(announced.event(.state, status("a", .playing)) == nil, "nothing changed: nothing said")
        #expect(announced.event(.position, status("a", .playing))?.event == .position)
        #expect(announced.event(.progress, status("a", .playing))?.event == .progress)
        #expect(announced.event(.state, status("b", .playing))?.event == .state, "each item its own")
        #expect(announced.event(.state, status("a", .paused)) == ItemEvent(.state, status("a", .paused)))
    }

    @Test func itemsLeftOutAreForgotten() {
        var announced = Announcements()
        _ = announced.event(.state, status("a", .playing))
        _ = announced.event(.state, status("b", .playing))
        announced.keep { $0 == "b" }
        #expect(announced.event(.state, status("a", .playing)) != nil, "forgotten: said again")
        #expect(announced.event(.state, status("b", .playing)) == nil)
    }
}
