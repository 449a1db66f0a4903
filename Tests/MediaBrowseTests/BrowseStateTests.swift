import MediaFeed
import MediaModel
import MediaTerminal
import Testing
@testable import MediaBrowse

/// browse's keys without a terminal: the reducer's new state and effects.
struct BrowseStateTests {
    /// Six items: 1 audio, 2 video, 3 image, 4 invalid, 5 audio, 6 audio.
    static let feed = Feed(title: "Feed", items: (1...6).map { position in
        FeedItem(
            position: position, id: "i\(position)", title: "Item \(position)",
            kind: position == 3 ? .image : position == 2 ? .video : .audio,
            source: .file("/nonexistent/\(position)"),
            invalidReason: position == 4 ? "missing \"url\"" : nil
        )
    })

    static func screen(columns: Int = 80) -> BrowseState.Screen {
        let layout = GridLayout(width: columns, height: 22, cells: feed.items.map { ($0.title, false) })
        return BrowseState.Screen(layout: layout, rows: 24, scrollTop: 0)
    }

    static func press(_ keys: [Key], on state: inout BrowseState) -> [BrowseState.Effect] {
        keys.flatMap { state.handle($0, on: screen()) }
    }

    @Test func arrowsMoveTheSelectionAndStayInside() {
        var state = BrowseState(feed: Self.feed, keymap: .standard)
        let columns = Self.screen().layout!.columns
        #expect(Self.press([.right], on: &state).isEmpty && state.selection == 1)
        #expect(Self.press([.left, .left], on: &state).isEmpty && state.selection == 0)
        _ = Self.press([.down], on: &state)
        #expect(state.selection == min(columns, 5))
        _ = Self.press([.character("G")], on: &state)
        #expect(state.selection == 5)
        _ = Self.press([.character("g")], on: &state)
        #expect(state.selection == 0)
    }

    @Test func enterPlaysAudioOpensAnImageAndRefusesAnInvalidItem() {
        var state = BrowseState(feed: Self.feed, keymap: .standard)
        #expect(Self.press([.enter], on: &state) == [.toggle(Self.feed.items[0])])
        _ = Self.press([.right, .right], on: &state)
        #expect(Self.press([.enter], on: &state).isEmpty)
        #expect(state.mode == .detail)
        #expect(Self.press([.character("q")], on: &state).isEmpty, "q in the detail view goes back, it does not quit")
        #expect(state.mode == .grid)
        _ = Self.press([.right], on: &state)
        #expect(Self.press([.enter], on: &state).isEmpty)
        #expect(state.message == "item 4 cannot be played: missing \"url\"")
        _ = Self.press([.right], on: &state)
        #expect(state.message == nil, "any key clears the message")
    }

    @Test func playbackKeysGoThroughTheKeymap() {
        var keymap = Keymap.standard
        keymap.bind("x", to: .seek(.by(20), nil))
        keymap.bind("9", to: nil)
        var state = BrowseState(feed: Self.feed, keymap: keymap)
        #expect(Self.press([.character("x")], on: &state) == [.perform(.seek(.by(20), nil))])
        #expect(Self.press([.character("9")], on: &state).isEmpty, "an unbound key does nothing")
        #expect(Self.press([.character("0")], on: &state) == [.perform(.volume(.by(Keymap.volumeStep)))])
        #expect(Self.press([.character(">")], on: &state) == [.perform(.next)])
        // The same keys in the detail view.
        _ = Self.press([.character("i")], on: &state)
        #expect(Self.press([.character("x")], on: &state) == [.perform(.seek(.by(20), nil))])
    }

    @Test func quitAndControlKeys() {
        var state = BrowseState(feed: Self.feed, keymap: .standard)
        #expect(Self.press([.character("q")], on: &state) == [.quit(status: 0)])
        #expect(Self.press([.control("c")], on: &state) == [.quit(status: 130)])
        #expect(Self.press([.control("l")], on: &state) == [.redrawAll])
        #expect(Self.press([.control("z")], on: &state) == [.suspend])
        #expect(Self.press([.character("r")], on: &state) == [.refresh])
        #expect(state.message == "re-reading the feed…")
        _ = Self.press([.character("?")], on: &state)
        #expect(state.mode == .help)
        #expect(Self.press([.character("q")], on: &state).isEmpty && state.mode == .grid, "any key leaves the help")
    }

    /// At 40×10 the help does not fit: ↑↓ scroll it to its last line (no
    /// further), any other key goes back where it was opened.
    @Test func theHelpScrollsOnASmallTerminal() {
        var state = BrowseState(feed: Self.feed, keymap: .standard)
        let small = BrowseState.Screen(layout: GridLayout(width: 40, height: 8, cells: Self.feed.items.map { ($0.title, false) }), rows: 10, scrollTop: 0)
        _ = state.handle(.character("i"), on: small)
        _ = state.handle(.character("?"), on: small)
        #expect(state.mode == .help && state.helpScroll == 0)
        for _ in 0..<40 { _ = state.handle(.down, on: small) }
        #expect(state.helpScroll == BrowseView.helpLineCount - (small.rows - 4), "to the last line, no further")
        _ = state.handle(.up, on: small)
        #expect(state.helpScroll == BrowseView.helpLineCount - (small.rows - 4) - 1)
        _ = state.handle(.character("x"), on: small)
        #expect(state.mode == .detail, "back to the details it was opened from")
    }

    /// `/` narrows the grid as the query is typed; the feed's numbers stay;
    /// Enter keeps the filter, Esc shows everything again; n/N then jump
    /// between the matches.
    @Test func searchNarrowsLiveAndKeepsTheFeedsNumbers() {
        var state = BrowseState(feed: Self.feed, keymap: .standard)
        _ = Self.press([.character("/"), .character("i"), .character("t")], on: &state)
        #expect(state.mode == .search && state.feed.items.count == 6 && state.matchCount == "6 of 6")
        _ = Self.press([.character("e"), .character("m"), .character(" "), .character("5")], on: &state)
        #expect(state.feed.items.map(\.position) == [5], "every word; the item keeps its number")
        _ = Self.press([.backspace], on: &state)
        #expect(state.feed.items.count == 6, "widens again")
        _ = Self.press([.character("6"), .enter], on: &state)
        #expect(state.mode == .grid && state.feed.items.map(\.position) == [6] && state.matchCount == "1 of 6")
        #expect(Self.press([.character(" ")], on: &state) == [.toggle(Self.feed.items[5])], "the grid's keys act on the match")
        _ = Self.press([.escape], on: &state)
        #expect(state.feed.items.count == 6 && state.selection == 5 && state.matchCount == nil, "everything, the selection on the same item")
        _ = Self.press([.character("/"), .character("i"), .character("t"), .character("e"), .character("m"), .character(" "), .character("2"), .escape], on: &state)
        #expect(state.feed.items.count == 6)
        _ = Self.press([.character("g"), .character("n")], on: &state)
        #expect(state.selection == 1, "n: the next match of the last query")
        _ = Self.press([.character("N")], on: &state)
        #expect(state.selection == 1, "the only match")
        _ = Self.press([.character("/"), .character("z"), .character("z"), .enter], on: &state)
        #expect(state.feed.items.isEmpty && state.matchCount == "0 of 6")
    }

    @Test func theDetailViewScrollsAndMovesBetweenItems() {
        var state = BrowseState(feed: Self.feed, keymap: .standard)
        _ = Self.press([.character("i"), .down, .down, .down], on: &state)
        #expect(state.mode == .detail && state.detailScroll == 3)
        _ = Self.press([.up], on: &state)
        #expect(state.detailScroll == 2)
        _ = Self.press([.right], on: &state)
        #expect(state.selection == 1 && state.detailScroll == 0)
        _ = Self.press([.left, .left], on: &state)
        #expect(state.selection == 0)
    }

    @Test func aFeedReadAgainKeepsTheSelectedItem() {
        var state = BrowseState(feed: Self.feed, keymap: .standard)
        _ = Self.press([.character("G")], on: &state)
        var shorter = Self.feed
        shorter.items.removeFirst(2)
        state.replaceFeed(shorter)
        #expect(state.selectedItem?.id == "i6")
        state.replaceFeed(Feed(title: "Two", items: Array(Self.feed.items.prefix(2))))
        #expect(state.selection == 1, "gone: as near its old place as the feed allows")
        state.replaceFeed(Feed(title: "Empty", items: []))
        #expect(state.selection == 0 && state.selectedItem == nil)
        #expect(Self.press([.enter, .character("i")], on: &state).isEmpty && state.mode == .grid)
    }
}
