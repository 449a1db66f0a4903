import MediaplayCommandLine
import MediaFeed
import MediaplayCommon
import MediaModel

/// Turns the selectors users type (positions or ids) into feed items, with
/// the exit codes of the README: no such item 66, invalid item 65.
package enum ItemSelection {
    /// `selectors`: numbers or ids, ranges of numbers (`3-7`, in either
    /// order) and lists (`3,5,9`); an id that looks like a range is the id.
    package static func resolve(_ selectors: [String], in feed: Feed, allowInvalid: Bool = false) throws(CLIError) -> [FeedItem] {
        var items: [FeedItem] = []
        for selector in try expanded(selectors, in: feed) {
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

    /// Lists and ranges of numbers written out, one selector each.
    static func expanded(_ selectors: [String], in feed: Feed) throws(CLIError) -> [String] {
        var result: [String] = []
        for selector in selectors {
            // An item's own id wins over a reading as a list or range.
            if feed.item(matching: selector) != nil {
                result.append(selector)
                continue
            }
            for part in selector.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                let ends = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { ItemSelector(String($0)) }
                if feed.item(matching: part) == nil, ends.count == 2, case let .number(first) = ends[0], case let .number(last) = ends[1] {
                    let (low, high) = (min(first, last), max(first, last))
                    guard low >= 1, high <= feed.items.count else {
                        let range = feed.items.isEmpty ? "the feed is empty" : "use 1–\(feed.items.count)"
                        throw CLIError("no items \(part) in the feed (\(range))", exitCode: .noInput)
                    }
                    result += (low...high).map(String.init)
                } else if part.isEmpty {
                    throw CLIError("an empty item in \"\(selector)\" (write numbers, ranges like 3-7, or ids, with commas between)", exitCode: .usage)
                } else {
                    result.append(part)
                }
            }
        }
        return result
    }
}
