import ArgumentParser
import Foundation
import MediaFeed

/// `list --sort`: the items in another order; those with nothing to sort by
/// (no artist, no date) after the rest, in the feed's order.
enum ListOrder {
    static func sorted(_ indices: [Int], by key: ListSort, items: [FeedItem], rows: [ItemRow]) -> [Int] {
        switch key {
        case .position: return indices
        case .title: return byText(indices) { rows[$0].title(of: items[$0]) }
        case .artist: return byText(indices) { rows[$0].details?.artist }
        case .album: return byText(indices) { rows[$0].details?.album }
        case .duration: return byNumber(indices) { rows[$0].details?.duration ?? items[$0].duration }
        case .date: return byNumber(indices) { items[$0].published?.timeIntervalSince1970 }
        }
    }

    /// Folded once per item (case and accents aside), then compared.
    private static func byText(_ indices: [Int], _ text: (Int) -> String?) -> [Int] {
        let keys = Dictionary(uniqueKeysWithValues: indices.map { ($0, text($0).map(ItemSearch.fold)) })
        return indices.sorted { a, b in
            switch (keys[a]!, keys[b]!) {
            case let (x?, y?): return x != y ? x.lexicographicallyPrecedes(y) : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a < b
            }
        }
    }

    private static func byNumber(_ indices: [Int], _ number: (Int) -> Double?) -> [Int] {
        let keys = Dictionary(uniqueKeysWithValues: indices.map { ($0, number($0)) })
        return indices.sorted { a, b in
            switch (keys[a]!, keys[b]!) {
            case let (x?, y?): return x != y ? x < y : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a < b
            }
        }
    }
}

/// `list --columns number,title,artist`: which columns, in order.
public struct ListColumns: ExpressibleByArgument, Sendable {
    public static let all = ["number", "kind", "title", "artist", "album", "date", "state", "position", "duration", "size"]
    public var names: [String]

    public init?(argument: String) {
        let names = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.map { $0 == "#" ? "number" : $0 }
        guard !names.isEmpty, names.allSatisfy(Self.all.contains) else { return nil }
        self.names = names
    }

    public static var defaultCompletionKind: CompletionKind { .list(all) }
}
