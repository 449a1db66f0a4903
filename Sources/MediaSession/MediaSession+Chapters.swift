import MediaFeed
import MediaModel

/// Chapters (`ChapterBook`) for what plays: a podcast's chapters file
/// fetched through the store, and `chapter next|prev|N`.
extension MediaSession {
    /// An episode's Podcasting 2.0 chapters file, read once as it first
    /// plays (on the session's blocking queue: a network read); a file that
    /// cannot be had leaves the file's own chapters, and a line in the log.
    func fetchChapters(of item: FeedItem) {
        guard let url = lock.withLock({ chapterBook.claim(item) }) else { return }
        blockingQueue.async { [weak self, problems, store = starter.store, documents = starter.documents] in
            switch ChapterBook.fetch(url, of: item, from: store, or: documents) {
            case let .problem(problem):
                problems?(problem)
            case let .chapters(chapters):
                guard let self else { return }
                self.lock.withLock { self.chapterBook.record(chapters, for: item.key) }
                self.announce(item.key, .metadata)
            }
        }
    }

    /// `chapter next|prev|N`: the current item and where its chapter starts.
    func chapterTarget(_ step: PlayerCommand.ChapterStep) throws(CommandError) -> (key: ItemKey, seconds: Double) {
        let found: (key: ItemKey, chapters: [Chapter], position: Double)? = lock.withLock {
            guard let key = current, let player = players[key], let item = itemLocked(key) else { return nil }
            return (key, chapterBook.chapters(of: item, inFile: player.mediaInfo?.chapters), player.currentPosition)
        }
        guard let found else { throw CommandError(.badRequest, "nothing is playing or paused (play an item with chapters first)") }
        return (found.key, try ChapterBook.target(step, in: found.chapters, at: found.position))
    }
}
