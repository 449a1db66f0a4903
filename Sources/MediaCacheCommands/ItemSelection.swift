import MediaplayCommandLine
import MediaFeed
import MediaplayCommon

/// Turns the selectors users type (positions or ids) into feed items, with
/// the exit codes of the README: no such item 66, invalid item 65.
package enum ItemSelection {
    package static func resolve(_ selectors: [String], in feed: Feed, allowInvalid: Bool = false) throws(CLIError) -> [FeedItem] {
        var items: [FeedItem] = []
        for selector in selectors {
            guard let item = feed.item(matching: selector) else {
                let range = feed.items.isEmpty ? "the feed is empty" : "use 1–\(feed.items.count) or an id from 'mediaplay list'"
                throw CLIError("no item \"\(selector)\" in the feed (\(range))", exitCode: .noInput)
            }
            if let reason = item.invalidReason, !allowInvalid {
                throw CLIError("item \(item.position) \"\(item.title)\" is invalid: \(reason) (fix the feed, see docs/FEED.md)", exitCode: .dataError)
            }
            if !items.contains(where: { $0.position == item.position }) { items.append(item) }
        }
        return items
    }
}
