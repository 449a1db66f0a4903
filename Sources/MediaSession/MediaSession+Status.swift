import MediaFeed
import MediaInterfaces
import MediaModel

/// What the session says about its items: their status, read under the lock
/// from every component that knows something of them, and the events.
extension MediaSession {
    public func status(of key: ItemKey) -> ItemStatus? {
        lock.withLock { itemLocked(key).map(statusLocked) }
    }

    /// The item's status (as the feed has it now, when it is still there).
    public func status(of item: FeedItem) -> ItemStatus {
        lock.withLock { statusLocked(itemLocked(item.key) ?? item) }
    }

    /// The active item's status, if any.
    public func currentStatus() -> ItemStatus? {
        lock.withLock { current.flatMap(itemLocked).map(statusLocked) }
    }

    /// The status of every item that is not idle (or has a position to resume).
    public func activeStatuses() -> [ItemStatus] {
        lock.withLock {
            var keys = Set(players.keys)
            keys.formUnion(downloads.keys)
            keys.formUnion(failures.keys)
            return keys.compactMap(itemLocked).sorted { $0.position < $1.position }.map(statusLocked).filter { $0.state != .idle }
        }
    }

    /// Why the item failed, with the code (a download, or the media).
    public func failure(of key: ItemKey) -> CommandError? {
        lock.withLock { failures[key] }
    }

    /// Where the item's player started: where it was left (a resume), a
    /// time asked for, or 0; nil before it has a player.
    public func startPosition(of key: ItemKey) -> Double? {
        lock.withLock { players[key] == nil ? nil : startedFrom[key] }
    }

    /// The item's playback counters (`play --stats`).
    public func statistics(of key: ItemKey) -> PlaybackStatistics? {
        lock.withLock { players[key]?.currentStatistics }
    }

    /// The one status of an item (`StatusFacts` makes it).
    func statusLocked(_ item: FeedItem) -> ItemStatus {
        let key = item.key
        let player = players[key]
        let facts = StatusFacts(
            player: player,
            chapters: player.map { chapterBook.chapters(of: item, inFile: $0.mediaInfo?.chapters) } ?? [],
            download: downloads[key], starting: starts.contains(key), failure: failures[key], live: streams.info(key),
            saved: { [positions] in item.source.flatMap { positions.position(for: $0.description) } }
        )
        return facts.status(of: item)
    }

    /// Changes as they happen, each with its kind (see `ItemEvent`).
    public func events() -> AsyncStream<ItemEvent> {
        subscribers.subscribe()
    }

    /// Sends the item's status now. `kind` is what happened; it is sent as a
    /// `state` event exactly when the state differs from the last one sent.
    /// `passed`: a state the player reported that its status is already
    /// past (a short item on a busy machine has ended by the time its
    /// `playing` is handled): said first, so every subscriber hears that it
    /// played.
    func announce(_ key: ItemKey, _ kind: ItemEvent.Kind, passed: ItemState? = nil) {
        lock.withLock {
            guard let item = itemLocked(key) else { return }
            let status = statusLocked(item)
            // Under the lock: every subscriber sees one order of events.
            if let passed, passed != status.state {
                var then = status
                then.state = passed
                if let event = announced.event(.state, then) { subscribers.send(event) }
            }
            guard let event = announced.event(kind, status) else { return }
            subscribers.send(event)
        }
    }
}
