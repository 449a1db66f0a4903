import Foundation
import MediaFeed
import MediaModel
import MediaTerminal

/// What one keystroke of browse's search costs at a feed's size, for
/// mediaplay-bench: the reducer narrows the grid (BrowseState), the grid is
/// laid out again (GridLayout) and the frame drawn (BrowseView), as
/// BrowseApp does for a key; no terminal and no pictures (a cell's picture
/// is drawn from what is already decoded).
public enum SearchTiming {
    /// Seconds per key for `/` and each character of `query`, in order.
    public static func keystrokes(feed: Feed, query: String, columns: Int = 160, rows: Int = 48) -> [Double] {
        var state = BrowseState(feed: feed, keymap: .standard)
        // As browse does once the feed is loaded, off the UI queue (untimed).
        let (items, details) = state.searchSource
        state.useSearch(ItemSearch(items: items, details: details), madeFor: items)
        var times: [Double] = []
        func laidOut(_ items: ShownItems) -> GridLayout {
            BrowseApp.layout(items, width: columns, height: rows - BrowseView.chromeRows, pictures: true, artists: [:]) { $0.thumbnail != nil }
        }
        // As browse opens: laid out once before any key.
        var layout = laidOut(state.feed.items)
        var generation = state.generation
        for key in [Key.character("/")] + query.map(Key.character) {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = state.handle(key, on: BrowseState.Screen(layout: layout, rows: rows, scrollTop: 0))
            let items = state.feed.items
            // Laid out again only when the items shown changed, as BrowseApp does.
            if state.generation != generation {
                layout = laidOut(items)
                generation = state.generation
            }
            let snapshot = BrowseSnapshot(
                columns: columns, rows: rows, title: feed.title, items: items, layout: layout, state: { _ in .notDownloaded(resumeAt: 0) },
                selection: state.selection, scrollTop: 0, mode: state.mode, detailScroll: 0, search: state.matchCount, message: nil,
                backendName: "", colors: true, tick: 0, picture: { _, _, _ in .none }
            )
            _ = BrowseView.render(snapshot)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times
    }
}
