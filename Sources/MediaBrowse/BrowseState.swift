import MediaFeed
import MediaModel
import MediaTerminal

/// What browse shows and where the user is in it, changed by keys alone:
/// a pure reducer. A key gives a new state and the effects the shell runs
/// (play, refresh, quit); nothing here draws, reads a file or waits, so every
/// key's meaning is testable without a terminal.
struct BrowseState {
    enum Mode: Equatable {
        case grid
        case detail
        case help
        /// Typing a query after `/`: the grid narrows as it is typed.
        case search
    }

    /// Work only the shell can do, in the order given.
    enum Effect: Equatable {
        /// Play or pause the item (an image never reaches here).
        case toggle(FeedItem)
        /// A playback command from the keymap.
        case perform(PlayerCommand)
        /// Re-read the feed.
        case refresh
        /// Draw everything anew (ctrl+l).
        case redrawAll
        case suspend
        case quit(status: Int32)
    }

    /// What the reducer needs of the screen: the grid as laid out, and rows.
    struct Screen {
        var layout: GridLayout?
        var rows: Int
        var scrollTop: Int
    }

    /// What the grid shows: the whole feed, or the items a query kept (in
    /// the feed's order, with the feed's numbers).
    private(set) var feed: ShownFeed
    /// The whole feed, and its items' text folded once for searching.
    private(set) var allItems: Feed
    private var search: ItemSearch?
    private var details: [MediaDetails?]
    /// The query being typed or kept; `filtered`: the grid shows only its
    /// matches (Enter kept them; Esc shows everything, and n/N then jump
    /// between the matches).
    private(set) var query = ""
    private(set) var filtered = false
    /// The query's matches, as indices into `allItems`.
    private var matches: [Int] = []
    /// What `feed` holds, as indices into `allItems` (nil: not yet set).
    private var shownIndices: [Int]?
    /// Bumped whenever `feed` changes (the shell lays the grid out again).
    private(set) var generation = 0
    private(set) var selection = 0
    private(set) var mode: Mode = .grid
    private(set) var detailScroll = 0
    /// The first help line shown (a small terminal scrolls it).
    private(set) var helpScroll = 0
    /// Where the help goes back to.
    private var beforeHelp: Mode = .grid
    /// The status bar's message; any key clears it.
    var message: String?
    let keymap: Keymap

    /// `details`: the items' probed details where known (their artist and
    /// album are searched too), one per item or none.
    init(feed: Feed, keymap: Keymap, message: String? = nil, details: [MediaDetails?] = []) {
        self.feed = ShownFeed(feed)
        allItems = feed
        self.details = details
        self.keymap = keymap
        self.message = message
    }

    /// "12 of 5,000" while a query narrows the grid; nil otherwise.
    var matchCount: String? {
        guard mode == .search || filtered else { return nil }
        return "\(feed.items.count) of \(allItems.items.count.formatted())"
    }

    var selectedItem: FeedItem? { feed.items.indices.contains(selection) ? feed.items[selection] : nil }

    mutating func handle(_ key: Key, on screen: Screen) -> [Effect] {
        if key == .control("c") { return [.quit(status: 130)] }
        if key == .control("z") { return [.suspend] }
        if key == .control("l") { return [.redrawAll] }
        message = nil
        switch mode {
        case .search: return handleSearch(key)
        case .help:
            // Lines that do not fit scroll; any other key closes the help.
            let visible = max(1, screen.rows - 4)
            let last = max(0, BrowseView.helpLineCount - visible)
            switch key {
            case .up, .character("k"), .wheel(up: true): helpScroll = max(0, helpScroll - 1)
            case .down, .character("j"), .wheel(up: false): helpScroll = min(last, helpScroll + 1)
            case .pageUp: helpScroll = max(0, helpScroll - visible)
            case .pageDown: helpScroll = min(last, helpScroll + visible)
            default: mode = beforeHelp
            }
            return []
        case .detail: return handleDetail(key, on: screen)
        case .grid: return handleGrid(key, on: screen)
        }
    }

    /// A feed read again: the selection stays on the same item (by id), or
    /// as near its old place as the new feed allows; a query kept applies
    /// to the new feed.
    mutating func replaceFeed(_ newFeed: Feed, details: [MediaDetails?] = []) {
        let selectedID = selectedItem?.id
        allItems = newFeed
        self.details = details
        search = nil
        shownIndices = nil
        // Everything first (the new feed's places), then a kept query.
        feed = ShownFeed(newFeed)
        generation += 1
        selection = newFeed.items.firstIndex { $0.id == selectedID } ?? min(selection, max(0, newFeed.items.count - 1))
        if filtered || mode == .search { applyQuery(narrowing: false) }
    }

    // MARK: - Search

    /// The feed's items and details, for the search index made off the UI
    /// queue as the feed loads (ItemSearch's folding takes a third of a
    /// second at 100,000 items).
    var searchSource: (items: [FeedItem], details: [MediaDetails?]) { (allItems.items, details) }

    /// The index made for `items`: used unless the feed changed meanwhile.
    mutating func useSearch(_ index: ItemSearch, madeFor items: [FeedItem]) {
        guard search == nil, index.count == allItems.items.count, items.first?.id == allItems.items.first?.id, items.last?.id == allItems.items.last?.id else { return }
        search = index
    }

    /// `/`: a query line; each key narrows (or widens) the grid at once.
    private mutating func handleSearch(_ key: Key) -> [Effect] {
        switch key {
        case .enter:
            // The matches stay; the grid's keys work on them.
            mode = .grid
            filtered = !query.isEmpty
            if !filtered { show(Array(allItems.items.indices)) }
        case .escape:
            clearFilter()
        case .backspace:
            guard !query.isEmpty else {
                clearFilter()
                return []
            }
            query.removeLast()
            applyQuery(narrowing: false)
        case let .character(typed):
            let before = query
            query.append(typed)
            applyQuery(narrowing: ItemSearch.narrows(query, from: before), previous: before)
        default:
            break
        }
        return []
    }

    private mutating func startSearch() {
        mode = .search
        if !filtered { query = "" }
        applyQuery(narrowing: false)
    }

    /// Esc: every item again, the selection on the same one; the query is
    /// kept for n and N.
    private mutating func clearFilter() {
        mode = .grid
        filtered = false
        show(Array(allItems.items.indices))
    }

    private mutating func applyQuery(narrowing: Bool, previous: String? = nil) {
        if search == nil { search = ItemSearch(items: allItems.items, details: details) }
        matches = narrowing ? search!.matches(query, among: matches, previous: previous) : search!.matches(query)
        show(matches)
    }

    /// The grid shows `indices` of the whole feed; the selection stays on
    /// its item when it is among them, else as near its old place as
    /// they allow.
    private mutating func show(_ indices: [Int]) {
        // The same items: nothing to lay out again (typing "item" in a feed
        // of items keeps every one).
        if indices.count == allItems.items.count && feed.items.count == allItems.items.count { return }
        if indices == shownIndices && feed.items.count == indices.count { return }
        shownIndices = indices
        let selectedID = selectedItem?.id
        let wasAt = selectedID == nil ? nil : feed.items.places?[selection] ?? selection
        feed = ShownFeed(allItems, places: indices.count == allItems.items.count ? nil : indices)
        // The selected item, found by its place in the feed (no item compared).
        let found = wasAt.flatMap { place in indices.count == allItems.items.count ? place : Self.search(indices, for: place) }
        selection = found ?? min(selection, max(0, feed.items.count - 1))
        generation += 1
    }

    /// Where `place` is in the sorted `indices`, if it is there.
    private static func search(_ indices: [Int], for place: Int) -> Int? {
        var low = 0, high = indices.count
        while low < high {
            let middle = (low + high) / 2
            if indices[middle] < place { low = middle + 1 } else { high = middle }
        }
        return low < indices.count && indices[low] == place ? low : nil
    }

    /// n / N: the next (previous) match of the last query in the whole grid.
    private mutating func jumpToMatch(forward: Bool) {
        guard !query.isEmpty else {
            message = "no search yet: / to search"
            return
        }
        if search == nil { search = ItemSearch(items: allItems.items, details: details) }
        matches = search!.matches(query)
        guard !matches.isEmpty else {
            message = "nothing matches \"\(query)\""
            return
        }
        // In the whole grid, positions in `feed` are positions in `allItems`.
        let next = forward ? matches.first { $0 > selection } ?? matches[0] : matches.last { $0 < selection } ?? matches[matches.count - 1]
        select(next)
    }

    private mutating func handleGrid(_ key: Key, on screen: Screen) -> [Effect] {
        guard let layout = screen.layout else { return [] }
        let page = layout.rowsPerPage(viewHeight: screen.rows - BrowseView.chromeRows)
        switch key {
        case .left, .character("h"): select(layout.move(selection, by: .left))
        case .right, .character("l"): select(layout.move(selection, by: .right))
        case .up, .character("k"), .wheel(up: true): select(layout.move(selection, by: .up))
        case .down, .character("j"), .wheel(up: false): select(layout.move(selection, by: .down))
        case .pageUp: select(layout.move(selection, by: .rows(-page)))
        case .pageDown: select(layout.move(selection, by: .rows(page)))
        case .home, .character("g"): select(layout.move(selection, by: .first))
        case .end, .character("G"): select(layout.move(selection, by: .last))
        case .enter, .character(" "): return activate()
        case .character("i"): openDetail()
        case .character("r"): return refresh()
        case .character("?"): openHelp()
        case .character("/"): startSearch()
        case .character("n") where !filtered: jumpToMatch(forward: true)
        case .character("N") where !filtered: jumpToMatch(forward: false)
        // Esc first leaves a filter; then it quits, as q does.
        case .escape where filtered: clearFilter()
        case .character("q"), .escape: return [.quit(status: 0)]
        case let .click(column, row):
            if row >= 1, let index = layout.cell(atColumn: column, row: row - 1 + screen.scrollTop) { select(index) }
        default: return bound(key)
        }
        return []
    }

    private mutating func handleDetail(_ key: Key, on screen: Screen) -> [Effect] {
        let page = max(1, screen.rows - 4)
        switch key {
        case .escape, .character("q"), .character("i"), .backspace: mode = .grid
        case .up, .character("k"), .wheel(up: true): detailScroll = max(0, detailScroll - 1)
        case .down, .character("j"), .wheel(up: false): detailScroll += 1
        case .pageUp: detailScroll = max(0, detailScroll - page)
        case .pageDown: detailScroll += page
        case .left, .character("h"): selectInDetail(selection - 1)
        case .right, .character("l"): selectInDetail(selection + 1)
        case .enter, .character(" "): return togglePlayback()
        case .character("r"): return refresh()
        case .character("?"): openHelp()
        default: return bound(key)
        }
        return []
    }

    /// A key that is not browse's own: its command in the keymap. `quit`
    /// ends browse; every other command goes to the player.
    private func bound(_ key: Key) -> [Effect] {
        guard let command = keymap.command(for: key) else { return [] }
        return command == .quit ? [.quit(status: 0)] : [.perform(command)]
    }

    private mutating func openHelp() {
        beforeHelp = mode
        helpScroll = 0
        mode = .help
    }

    private mutating func refresh() -> [Effect] {
        message = "re-reading the feed…"
        return [.refresh]
    }

    private mutating func select(_ index: Int) {
        guard feed.items.indices.contains(index) else { return }
        selection = index
    }

    private mutating func selectInDetail(_ index: Int) {
        guard feed.items.indices.contains(index) else { return }
        selection = index
        detailScroll = 0
    }

    private mutating func openDetail() {
        guard selectedItem != nil else { return }
        detailScroll = 0
        mode = .detail
    }

    /// Enter or space on a cell: an image opens, audio and video play or pause.
    private mutating func activate() -> [Effect] {
        guard let item = selectedItem else { return [] }
        if item.kind == .image {
            openDetail()
            return []
        }
        return togglePlayback()
    }

    private mutating func togglePlayback() -> [Effect] {
        guard let item = selectedItem else { return [] }
        if let reason = item.invalidReason {
            message = "item \(item.position) cannot be played: \(reason)"
            return []
        }
        return item.kind == .image ? [] : [.toggle(item)]
    }
}
