import MediaCacheFolder
import MediaTerminal

/// Words for an entry's status, shared by `list` and `cache list`.
public enum EntryText {
    public static func describe(_ status: EntryStatus) -> (state: String, size: String) {
        switch status {
        case .notDownloaded:
            return ("not downloaded", "")
        case let .downloading(received, total):
            return ("downloading" + percent(received, total), formatByteCount(received))
        case let .partial(received, total):
            return ("partial" + percent(received, total), formatByteCount(received))
        case let .cached(size):
            return ("cached", formatByteCount(size))
        case let .failed(reason, _):
            return ("failed: \(reason)", "")
        }
    }

    static func percent(_ received: Int64, _ total: Int64?) -> String {
        guard let total, total > 0 else { return "" }
        return " \(min(100, Int(Double(received) * 100 / Double(total))))%"
    }
}
