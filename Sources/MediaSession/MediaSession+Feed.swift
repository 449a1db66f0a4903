import MediaFeed
import MediaInterfaces
import MediaModel

/// A feed replaced (a refresh, a file that changed) and the items played by
/// themselves beside it: what plays follows its item by key.
extension MediaSession {
    /// Replaces the feed (a refresh) and keeps what plays: everything follows
    /// its item by key to its new number. An item no longer in the feed, or
    /// whose media changed, is stopped (its position saved) and returned.
    @discardableResult
    public func update(feed given: Feed) -> [FeedItem] {
        // Files and URLs toggled by themselves stay, after the feed's items.
        let newFeed = lock.withLock { Self.joining(given, oneOffs) }
        let newIndex = Self.index(newFeed)
        let (dropped, stopped): ([FeedItem], [any PlayerHandle]) = lock.withLock {
            func survives(_ key: ItemKey) -> Bool {
                guard let old = itemLocked(key), let now = newIndex[key] else { return false }
                return newFeed.items[now].source == old.source
            }
            var dropped: [FeedItem] = []
            var stopped: [any PlayerHandle] = []
            for (key, player) in players where !survives(key) {
                if let item = itemLocked(key) {
                    savePositionLocked(item, player)
                    dropped.append(item)
                }
                stopped.append(player)
                players[key] = nil
            }
            if let active = current, !survives(active) { current = nil }
            downloads.keep(where: survives)
            failures.keep(where: survives)
            announced.keep(where: survives)
            currentFeed = newFeed
            index = newIndex
            // The order stays; new items join it (at random places under shuffle).
            playlist.update(items: newFeed.items)
            tellFollowedLocked()
            // Said once more, as they stand now: stopped and out of the feed.
            for item in dropped { subscribers.send(ItemEvent(.state, statusLocked(item))) }
            return (dropped, stopped)
        }
        for player in stopped { player.stop() }
        return dropped
    }

    static func index(_ feed: Feed) -> [ItemKey: Int] {
        var index: [ItemKey: Int] = [:]
        index.reserveCapacity(feed.items.count)
        for (offset, item) in feed.items.enumerated() where index[item.key] == nil { index[item.key] = offset }
        return index
    }

    /// The feed with the one-off items after its own, numbered on from it
    /// (one the feed now has itself is the feed's).
    private static func joining(_ feed: Feed, _ oneOffs: [FeedItem]) -> Feed {
        guard !oneOffs.isEmpty else { return feed }
        var joined = feed
        let sources = Set(feed.items.compactMap(\.source))
        for var item in oneOffs where !sources.contains(item.source!) {
            item.position = joined.items.count + 1
            joined.items.append(item)
        }
        return joined
    }

    /// A file or URL to play by itself (`mediaplay toggle ~/song.mp3`): the
    /// feed's item with that media if there is one, else a one-off item after
    /// the feed's, kept while the session lives (positions are kept by URL
    /// as for any item).
    public func oneOffItem(_ source: MediaSource, title: String? = nil) -> FeedItem {
        let (existing, feed): (FeedItem?, Feed) = lock.withLock {
            (currentFeed.items.first { $0.source == source }, currentFeed)
        }
        if let existing { return existing }
        var item = Feed.single(source).items[0]
        if let title { item.title = title }
        lock.withLock { oneOffs.append(item) }
        item.position = feed.items.count + 1
        // The feed as it stands (earlier one-offs in it already): the new one joins.
        update(feed: feed)
        return self.feed.items.first { $0.source == source } ?? item
    }
}
