import MediaFeed
import MediaInterfaces
import MediaModel

/// What the session knows of one item, gathered under its lock, and the one
/// place where that becomes the item's `ItemStatus`: a player's state turned
/// into the item's, or, without a player, a download, a start under way, a
/// failure, or the position it would resume at.
struct StatusFacts {
    /// The item's player, if it has one.
    var player: (any PlayerHandle)?
    /// Its chapters (`ChapterBook`), read while it has a player.
    var chapters: [Chapter] = []
    /// A whole-file download under way: the fraction received, when known.
    var download: Double?? = nil
    /// A start under way (the server has not answered, the file is not open).
    var starting = false
    var failure: CommandError?
    /// A live stream's title and notice.
    var live: LiveStreams.Info?
    /// Where it would resume (read only for an item that is otherwise idle).
    var saved: () -> Double? = { nil }

    func status(of item: FeedItem) -> ItemStatus {
        let key = item.key
        var status = ItemStatus(item: item.position, id: key, title: item.title, kind: item.kind, state: .idle, position: 0)
        if let player {
            let isImage = player.mediaInfo?.isImage == true || item.kind == .image
            status.position = isImage ? 0 : player.currentPosition
            status.duration = player.mediaInfo.flatMap { $0.isImage ? nil : $0.duration }
            status.chapter = ChapterStatus(at: status.position, in: chapters)
            status.gain = player.appliedGain
            status.subtitle = player.currentSubtitle
            status.tracks = player.trackStatus
            switch player.currentState {
            // Starting counts as playing once the file is open: what the
            // user asked for is under way. Before (a server that has not
            // answered yet) nothing plays: buffering.
            case .starting where player.mediaInfo == nil: status.state = .buffering
            case .starting, .playing: status.state = .playing
            case .buffering:
                status.state = .buffering
                status.progress = player.bufferFill
            case .paused: status.state = .paused
            // A closed picture is simply closed: nothing to resume.
            case .stopped: status.state = isImage ? .idle : .stopped
            case .ended: status.state = .ended
            case .failed:
                status.state = .failed
                status.error = failure?.message ?? Failures.text(of: player, item)
            }
            if let live {
                status.live = true
                status.duration = nil
                status.streamTitle = live.title
                status.notice = live.notice
            }
        } else if let progress = download {
            status.state = .downloading
            status.progress = progress
        } else if starting {
            // Waiting for the server's first answer.
            status.state = .buffering
        } else if let failure {
            status.state = .failed
            status.error = failure.message
        } else if let saved = saved() {
            status.position = saved
        }
        return status
    }
}
