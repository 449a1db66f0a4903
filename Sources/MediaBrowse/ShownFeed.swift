import MediaFeed
import MediaModel

/// The items the grid shows: the whole feed, or those a search kept, as
/// places in the feed's own array (a keystroke that keeps 60,000 items
/// copies no item). Numbers are the feed's.
struct ShownItems: RandomAccessCollection, Sendable {
    let base: [FeedItem]
    /// Indices into `base`; nil: all of it.
    let places: [Int]?

    var startIndex: Int { 0 }
    var endIndex: Int { places?.count ?? base.count }
    subscript(position: Int) -> FeedItem { base[places?[position] ?? position] }
}

/// A feed as the grid shows it: its title, and the items shown.
struct ShownFeed: Sendable {
    var title: String
    var items: ShownItems
    /// The whole feed, for finding an item whatever is shown.
    var whole: Feed

    init(_ feed: Feed, places: [Int]? = nil) {
        title = feed.title
        items = ShownItems(base: feed.items, places: places)
        whole = feed
    }

    /// The item a status or a selector names, shown or not.
    func item(matching selector: ItemSelector) -> FeedItem? { whole.item(matching: selector) }
}
