import MediaFeed
import MediaInterfaces
import MediaModel

/// Why items failed, with the code (a download, or the media), kept for
/// their status until they start again; and the one wording of a failure.
/// A value the session holds under its lock.
public struct Failures: Sendable {
    private var byItem: [ItemKey: CommandError] = [:]

    subscript(key: ItemKey) -> CommandError? {
        get { byItem[key] }
        set { byItem[key] = newValue }
    }

    var keys: Dictionary<ItemKey, CommandError>.Keys { byItem.keys }

    /// Forgets the items `keep` says no to (gone from the feed).
    mutating func keep(where keep: (ItemKey) -> Bool) {
        byItem = byItem.filter { keep($0.key) }
    }

    /// A start that failed: what the item's status keeps (nil: nothing to
    /// keep) and the error to throw, which names the item (the status's
    /// error does not: front ends show it beside the item).
    static func ofStart(_ failure: ItemStarter.Failure, _ item: FeedItem) -> (kept: CommandError?, thrown: CommandError) {
        switch failure {
        case let .missing(path):
            return (CommandError(.noSuchItem, "missing: no readable file at \(path)"),
                    CommandError(.noSuchItem, "item \(item.position): no readable file at \(path)"))
        case let .download(reason), let .document(_, reason):
            // A download a stop cancelled did not fail (the session asks that first).
            return (CommandError(.downloadFailed, "download failed: \(reason)"),
                    CommandError(.downloadFailed, "item \(item.position) \"\(item.title)\": download failed: \(reason)"))
        case let .refused(reason):
            // The server's refusal (a changed password), its own words: about the login, not the item.
            return (CommandError(.forbidden, reason), CommandError(.forbidden, "item \(item.position) \"\(item.title)\": \(reason)"))
        case .noCache:
            return (nil, CommandError(.downloadFailed, "item \(item.position) needs a download and no cache is open"))
        case .textOnly:
            return (nil, CommandError(.invalidItem, "item \(item.position) \"\(item.title)\" is text only: it has no media to play"))
        case let .page(error):
            let code: CommandError.Code = switch error {
            case .noResolver: .unavailable
            case .refused, .off: .invalidItem
            case .failed: .downloadFailed
            }
            return (CommandError(code, error.description), CommandError(code, "item \(item.position) \"\(item.title)\": \(error)"))
        }
    }

    /// A player that failed: its input's failure is a download's. Kept
    /// for the item's status, which front ends show beside the item (so it
    /// does not name it again: `✗ failed 2 "Title": reason`).
    static func ofPlayer(_ player: any PlayerHandle, _ item: FeedItem) -> CommandError {
        CommandError(player.failedForInput ? .downloadFailed : .playbackFailed, text(of: player, item))
    }

    /// A player's failure, without the file the engine opened (a cache
    /// entry's hash): its item is said beside it.
    static func text(of player: any PlayerHandle, _ item: FeedItem) -> String {
        player.failureReasonOnly ?? "playback failed"
    }

    /// A failure as one line that names its item once: `item 2 "Title":
    /// reason`, whether the reason named it already or not.
    public static func line(_ error: CommandError, of item: FeedItem) -> String {
        let named = "item \(item.position) \"\(item.title)\": "
        var reason = Substring(error.message)
        // The forms kept and thrown above, their own naming taken off.
        for prefix in [named, "item \(item.position): ", "missing: "] where reason.hasPrefix(prefix) { reason = reason.dropFirst(prefix.count) }
        return named + reason
    }
}
