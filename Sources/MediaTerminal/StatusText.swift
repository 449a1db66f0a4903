import MediaModel


/// The one-line descriptions of an item's state that the client commands print.
public enum StatusText {
    /// `▶ playing 3 "Title" 00:00/03:20`, `⏸ paused 3 "Title" at 01:02`, ...
    public static func line(_ status: ItemStatus) -> String {
        let (verb, detail) = parts(status)
        // The title and any error come from the feed and the media: escaped,
        // and a URL they quote without its password.
        return DisplayWidth.escaped("\(verb) \(status.item) \"\(status.title)\"\(detail)".redactingUserinfo)
    }

    /// The same without the item: `▶ playing 00:00/03:20`, `⏸ paused at
    /// 01:02` (`list`'s STATE column, beside the item's title).
    public static func brief(_ status: ItemStatus) -> String {
        let (verb, detail) = parts(status)
        return DisplayWidth.escaped((verb + detail).redactingUserinfo)
    }

    private static func parts(_ status: ItemStatus) -> (verb: String, detail: String) {
        let (verb, detail) = stateParts(status)
        // A live stream: what plays now, and what is being done about a drop.
        var extra = ""
        if [.playing, .paused, .buffering].contains(status.state) {
            if let title = status.streamTitle, !title.isEmpty { extra += " · \(title)" }
            if let chapter = status.chapter { extra += " · chapter \(chapter.line)" }
            if let notice = status.notice { extra += " (\(notice))" }
        }
        return (verb, detail + extra)
    }

    private static func stateParts(_ status: ItemStatus) -> (verb: String, detail: String) {
        let isImage = status.kind == .image
        let percent = status.progress.map { " \(Percent.text($0))" } ?? ""
        switch status.state {
        case .playing:
            if isImage { return ("▶ showing", "") }
            if status.live == true { return ("▶ playing", " live \(clock(status.position))") }
            return ("▶ playing", " \(clock(status.position))/\(status.duration.map(clock) ?? "--:--")")
        case .paused:
            return ("⏸ paused", " at \(clock(status.position))")
        case .buffering:
            return ("◌ buffering", " at \(clock(status.position))\(percent)")
        case .downloading:
            return ("⤓ downloading", percent)
        case .ended:
            return ("■ ended", "")
        case .failed:
            return ("✗ failed", ": \(status.error ?? "unknown error")")
        case .idle, .stopped:
            if isImage { return ("■ closed", "") }
            return ("■ stopped", status.position > 0 ? " at \(clock(status.position))" : "")
        }
    }

    /// "03:20", or "1:05:03" past an hour.
    public static func clock(_ seconds: Double) -> String {
        let total = Int(CheckedNumber.position(seconds).rounded(.down))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(two(m)):\(two(s))"
    }
}

extension SleepStatus {
    /// `sleep in 29:41`, `sleep at the end of this item`, `sleep off`.
    public var line: String {
        if atEnd { return "💤 sleep at the end of this item" }
        guard let remaining else { return "💤 sleep off" }
        return "💤 sleep in \(StatusText.clock(remaining.rounded(.up)))"
    }
}
