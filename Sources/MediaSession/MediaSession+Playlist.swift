import MediaFeed
import MediaModel

/// The feed as a playlist: its modes, next and previous, and autoplay's
/// next item when one ends (the order itself is `Playlist`'s).
extension MediaSession {
    /// Autoplay, repeat and shuffle as they stand.
    public var playlistMode: PlaylistMode { lock.withLock { playlist.mode } }

    /// Whether autoplay starts another item when `key`'s ends.
    public func willPlayOn(after key: ItemKey) -> Bool {
        lock.withLock {
            guard playlist.mode.autoplay, let item = itemLocked(key) else { return false }
            return playlist.successor(after: item) != nil
        }
    }

    /// Changes the playlist's modes (nil leaves one as it is); returns them.
    /// Turning shuffle on draws a new order, fixed until it is turned off.
    @discardableResult
    public func setPlaylist(autoplay: Bool? = nil, repeat mode: PlaylistMode.Repeat? = nil, shuffle: Bool? = nil) -> PlaylistMode {
        lock.withLock {
            playlist.set(autoplay: autoplay, repeat: mode, shuffle: shuffle)
            tellFollowedLocked()
            sendSettingsLocked()
            return playlist.mode
        }
    }

    /// With `lock` held: tells the current player whether an item follows
    /// it now (gapless hands its device on only then).
    func tellFollowedLocked() {
        if let key = current, let player = players[key], let item = itemLocked(key) { player.setFollowed(playlist.successor(after: item) != nil) }
    }

    /// Plays the item after the current one (in the playlist's order; past
    /// the last, the first when repeating all).
    @discardableResult
    public func next() async throws(CommandError) -> ItemStatus {
        try await step(by: 1)
    }

    /// Plays the item before the current one.
    @discardableResult
    public func previous() async throws(CommandError) -> ItemStatus {
        try await step(by: -1)
    }

    /// Whether `next` and `previous` have an item to go to now.
    public var canStep: (next: Bool, previous: Bool) {
        lock.withLock { (playlist.step(from: current, by: 1) != nil, playlist.step(from: current, by: -1) != nil) }
    }

    private func step(by offset: Int) async throws(CommandError) -> ItemStatus {
        let target: ItemKey? = lock.withLock { playlist.step(from: current, by: offset) }
        guard let target else {
            throw CommandError(.noSuchItem, offset > 0 ? "no next item (the end of the playlist; 'mediaplay repeat all' goes round)" : "no previous item (the start of the playlist)")
        }
        // The item skipped stops (its position kept), as in every player's
        // playlist: a paused one would hold its decoder and window for nothing.
        // After the target starts (it is current then): a front end that sees
        // the skipped one stop follows what is current (play's view does).
        let skipped = lock.withLock { current }
        let status = try await play(target, from: 0)
        if let skipped, skipped != target { await stop(skipped) }
        return status
    }

    /// When an item played to its end: the next one, as the modes say.
    func playOn(after item: FeedItem) {
        let next: ItemKey? = lock.withLock {
            guard current == item.key else { return nil }
            return playlist.successor(after: item)
        }
        guard let next else { return }
        background { [weak self] in _ = try? await self?.play(next, from: next == item.key ? 0 : nil) }
    }
}
