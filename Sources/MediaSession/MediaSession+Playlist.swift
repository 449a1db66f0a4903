import MediaFeed
import MediaModel

/// The feed as a playlist: its modes, next and previous, and autoplay's
/// next item when one ends (the order itself is `Playlist`'s).
extension MediaSession {
    /// Autoplay, repeat and shuffle as they stand.
    public var playlistMode: PlaylistMode { lock.withLock { playlist.mode } }

    /// Whether autoplay starts another item when `key`'s ends, or past its
    /// failure (one that failed since an item last played is not tried again).
    public func willPlayOn(after key: ItemKey) -> Bool {
        lock.withLock { successorLocked(after: key) != nil }
    }

    /// With `lock` held: what autoplay plays after `key`, past the items
    /// that failed in this round already (nil: nothing, or only those).
    private func successorLocked(after key: ItemKey) -> ItemKey? {
        var from = key
        var seen: Set<ItemKey> = [key]
        while let item = itemLocked(from), let next = playlist.successor(after: item) {
            if !pastFailures.hasFailed(next) { return next }
            guard seen.insert(next).inserted else { return nil }
            from = next
        }
        return nil
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

    /// `next` and `previous`: the neighbour in the playlist's order, from
    /// where it was left; one that fails (a file that cannot be read or
    /// decoded, a missing entry) is stepped over, in the same direction,
    /// each with its failure kept for its status.
    private func step(by offset: Int) async throws(CommandError) -> ItemStatus {
        // The item skipped stops (its position kept), as in every player's
        // playlist: a paused one would hold its decoder and window for nothing.
        // After the target starts (it is current then): a front end that sees
        // the skipped one stop follows what is current (play's view does).
        let skipped = lock.withLock { current }
        var from = skipped
        var tried: Set<ItemKey> = []
        var failure: CommandError?
        while let target = lock.withLock({ playlist.step(from: from, by: offset) }), tried.insert(target).inserted {
            from = target
            lock.withLock { pastFailures.callerHandles(target) }
            let status: ItemStatus
            do throws(CommandError) {
                status = try await play(target, from: nil)
            } catch {
                startDone(target)
                failure = error
                continue
            }
            startDone(target)
            if status.state == .failed {
                failure = self.failure(of: target) ?? CommandError(.playbackFailed, status.error ?? "playback failed")
                continue
            }
            if let skipped, skipped != target { await stop(skipped) }
            return status
        }
        if let failure { throw failure }
        throw CommandError(.noSuchItem, offset > 0 ? "no next item (the end of the playlist; 'mediaplay repeat all' goes round)" : "no previous item (the start of the playlist)")
    }

    /// When an item played to its end: the next one, as the modes say.
    func playOn(after item: FeedItem) {
        let next: ItemKey? = lock.withLock {
            guard current == item.key else { return nil }
            return playlist.successor(after: item)
        }
        guard let next else { return }
        background { [weak self] in await self?.playInTurn(next, from: next == item.key ? 0 : nil) }
    }

    /// After a start the caller made failed (`play`'s first item, a
    /// missing file): the playlist goes on past it as autoplay does.
    /// Whether something plays on.
    @discardableResult
    public func playOn(pastFailureOf key: ItemKey) -> Bool {
        guard let item = item(for: key), willPlayOn(after: key) else { return false }
        playOnPastFailure(of: item)
        return true
    }

    /// When an item failed as the playlist played on (or as `play` began
    /// it): the one after it, as past an end, unless nothing was to play
    /// on or that one failed in this round already.
    func playOnPastFailure(of item: FeedItem) {
        guard let next = lock.withLock({ successorLocked(after: item.key) }) else { return }
        background { [weak self] in await self?.playInTurn(next, from: nil) }
    }

    /// Autoplay's start of `key`: one that cannot start goes on to the next
    /// (unless another item was started meanwhile).
    private func playInTurn(_ key: ItemKey, from position: Double?) async {
        do throws(CommandError) {
            _ = try await play(key, from: position)
        } catch {
            let idle = lock.withLock { current.flatMap { players[$0] }.map { $0.currentState.isFinal } ?? true }
            if idle, let item = item(for: key) { playOnPastFailure(of: item) }
        }
    }
}
