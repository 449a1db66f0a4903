import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel

/// Starting an item (its bytes found, a player made and registered) and
/// what its player reports afterwards.
extension MediaSession {
    func checkPlayable(_ item: FeedItem) throws(CommandError) {
        guard item.isValid else {
            throw CommandError(.invalidItem, "item \(item.position) \"\(item.title)\" is invalid: \(item.invalidReason ?? "unusable record")")
        }
        if item.source == nil {
            throw CommandError(.invalidItem, "item \(item.position) \"\(item.title)\" is text only: it has no media to play")
        }
    }

    /// Downloads what must come first, then starts a player; returns once
    /// its file is open (so the status has the duration) or it failed. A
    /// stop meanwhile cancels it: it returns the item's status, not playing.
    func start(_ requested: FeedItem, at position: Double, onProgress: (@Sendable (ItemStatus) -> Void)?) async throws(CommandError) -> ItemStatus {
        let key = requested.key
        lock.withLock { starts.begin(key) }
        // However it ends, the toggles that joined it hear the outcome.
        defer { lock.withLock { starts.finished(key) }.resume() }
        let input: MediaInput
        let item: FeedItem
        do throws(ItemStarter.Failure) {
            let started = try await starter.input(for: requested) { [weak self] download in
                self?.downloadWent(download, item: requested, onProgress: onProgress)
            }
            input = started.input
            item = started.page.map { pageResolved($0, for: requested) } ?? requested
        } catch {
            // A server's error document where its song was asked for: the
            // server says why (a changed password), asked off the pool while
            // the start is still under way (a stop or a toggle meets it).
            var failure = error
            if case let .document(url, _) = error, let reports, let refusal = await blocking({ reports.refusal(of: url) }) {
                failure = .refused(refusal)
            }
            // A stop came: the start ends without playing (no failure).
            if lock.withLock({ starts.end(key) }) {
                announce(key, .state)
                return status(of: requested)
            }
            // Listeners heard "buffering" while it started: the start is over.
            throw failedStart(requested, failure)
        }
        // A live stream: its titles and notices are the item's.
        let live: (any LiveByteSource)? = if case let .source(source) = input { source as? any LiveByteSource } else { nil }
        if let live {
            live.onTitle = { [weak self] title in self?.streamChanged(key) { $0.title(title, for: key) } }
            live.onNotice = { [weak self] notice in self?.streamChanged(key) { $0.notice(notice, for: key) } }
        }
        lock.withLock { streams.started(key, live: live != nil) }
        // Window input goes to the item's commands while this player is its
        // own (a closing window of a replaced player changes nothing).
        let slot = PlayerSlot()
        let engine = engine
        let (settings, tracks) = lock.withLock { (playerSettingsLocked(), self.tracks) }
        let subtitleFiles = item.subtitles.isEmpty ? [] : await starter.subtitleFiles(for: item)
        let player = await blocking {
            // Off the pool: opening the device and probing the file block.
            engine.makePlayer(for: item, input: input, start: position, settings: settings, tracks: tracks, subtitleFiles: subtitleFiles) { [weak self] input in
                guard let self, let player = slot.player else { return }
                self.windowInput(input, for: key, from: player)
            }
        }
        slot.player = player
        // Counted before it can be registered: a shutdown that finds it waits for its loop.
        let loops = eventLoops
        loops.enter(player)
        let events = player.events()
        let opening = player.events()
        let registered: (replaced: (any PlayerHandle)?, ok: Bool) = lock.withLock {
            // Stopped meanwhile, or the feed dropped the item or changed its media.
            guard !starts.end(key), let now = itemLocked(key), now.source == item.source else { return (nil, false) }
            pauseCurrentLocked(except: key)
            let resolved = playerSettingsLocked()
            if resolved != settings { player.setAudioSettings(resolved) }
            let replaced = players[key]
            players[key] = player
            startedFrom[key] = position
            current = key
            player.setFollowed(playlist.successor(after: now) != nil)
            failures[key] = nil
            return (replaced, true)
        }
        guard registered.ok else {
            loops.leave(player)
            player.stop()
            announce(key, .state)
            return status(of: item)
        }
        registered.replaced?.stop()
        if let url = item.source?.description { positions.startsAgain(url) }
        player.play()
        if case let .remote(url)? = item.source { reports?.started(url) }
        Task { [weak self] in
            defer { loops.leave(player) }
            for await event in events {
                guard let self else { return }
                self.playerEvent(event, item: item, player: player)
            }
        }
        for await event in opening {
            if case .opened = event { break }
            if case let .state(state) = event, state.isFinal { break }
        }
        // A sleep timer set goes on with this item (its length is known now).
        if lock.withLock({ sleepTimer.isSet }) { armSleep() }
        fetchChapters(of: item)
        return status(of: item)
    }

    /// What a player reported: kept as the item's state, saved, announced.
    private func playerEvent(_ event: PlayerEvent, item: FeedItem, player: any PlayerHandle) {
        let key = item.key
        switch event {
        // Opening (and the starting state replayed before it) is not yet playing
        // for the listeners: the first output's `playing` is.
        case .opened, .state(.starting): return
        case .position:
            sleepFollows(key, position: player.currentPosition)
            if let url = item.source?.description, ResumePositions.isPlayed(at: player.currentPosition, of: player.mediaInfo?.duration) {
                positions.markPlayed(url)
            }
            announce(key, .position)
        case .buffered: announce(key, .progress)
        case .subtitle: announce(key, .subtitle)
        case let .state(state):
            let isRegistered = lock.withLock { players[key] === player }
            if isRegistered, state == .playing { lock.withLock { pastFailures.played(key) } }
            if isRegistered, let url = item.source?.description {
                switch state {
                // Played to the end: next time starts from the top, and the
                // playlist plays on.
                case .ended:
                    positions.remove(for: url)
                    if player.mediaInfo?.isImage != true { positions.markPlayed(url) }
                    if case let .remote(remote)? = item.source, player.mediaInfo?.isImage != true { reports?.ended(remote) }
                    // `sleep end`: the item's end is where playback stops.
                    if !sleepsAtEnd(of: key) { playOn(after: item) }
                case .paused:
                    // The sleep timer's pause keeps the position like any pause.
                    if sleepEnded(key, position: player.currentPosition), player.mediaInfo?.isImage != true {
                        positions.keep(player.currentPosition, of: player.mediaInfo?.duration, for: url)
                    }
                // Cut short (a closed window included): the next toggle resumes here.
                case .stopped where player.mediaInfo?.isImage != true && lock.withLock({ !streams.isLive(key) }):
                    let position = player.currentPosition
                    if position > 0 { positions.keep(position, of: player.mediaInfo?.duration, for: url) }
                case .failed:
                    let failure = Failures.ofPlayer(player, item)
                    // The playlist goes on past it, as past an end (unless
                    // its toggle or step answers for it, or it was not the
                    // current item any more).
                    let goesOn = lock.withLock {
                        failures[key] = failure
                        return pastFailures.playerFailed(key) && current == key
                    }
                    if goesOn { playOnPastFailure(of: item) }
                default: break
                }
            }
            announce(key, .state, passed: isRegistered && state == .playing ? .playing : nil)
        }
    }

    /// What a web page said of its media becomes the item's: its title,
    /// length, picture, chapters and subtitles (the feed's own win where it
    /// has them). Kept in the session's feed, so status, MPRIS and `play`
    /// show it; the item as it now is.
    private func pageResolved(_ page: ResolvedPage, for item: FeedItem) -> FeedItem {
        var resolved = item
        if let title = page.title, item.titleIsDerived || item.title.isEmpty || item.title == item.source?.description.redactingUserinfo {
            resolved.title = title
            resolved.titleIsDerived = false
        }
        resolved.duration = item.duration ?? page.duration
        resolved.thumbnail = item.thumbnail ?? page.thumbnail.map(MediaSource.remote)
        if item.chapters.isEmpty { resolved.chapters = page.chapters }
        let linked = Set(item.subtitles.map(\.source))
        resolved.subtitles += page.subtitles.filter { !linked.contains(.remote($0.url)) }.map { SubtitleLink(source: .remote($0.url), language: $0.language) }
        let changed = lock.withLock { () -> Bool in
            guard let index = index[item.key], currentFeed.items[index].source == item.source else { return false }
            currentFeed.items[index] = resolved
            if let one = oneOffs.firstIndex(where: { $0.key == item.key }) { oneOffs[one] = resolved }
            return true
        }
        if changed { announce(item.key, .metadata) }
        return resolved
    }

    /// A live stream's now-playing line or notice changed: kept, and said.
    private func streamChanged(_ key: ItemKey, _ change: (inout LiveStreams) -> Bool) {
        if lock.withLock({ change(&streams) }) { announce(key, .metadata) }
    }

    /// A whole-file download under way for `item`, kept for its status.
    private func downloadWent(_ download: ItemStarter.Download, item: FeedItem, onProgress: (@Sendable (ItemStatus) -> Void)?) {
        let key = item.key
        let kind: ItemEvent.Kind? = lock.withLock {
            // A new try: the last one's failure is over.
            if case .began = download { failures[key] = nil }
            return downloads.went(download, for: key)
        }
        guard let kind else { return }
        announce(key, kind)
        if kind == .progress, let status = status(of: key) { onProgress?(status) }
    }

    /// Records and announces why a start failed; returns the error to throw.
    private func failedStart(_ item: FeedItem, _ failure: ItemStarter.Failure) -> CommandError {
        let (kept, thrown) = Failures.ofStart(failure, item)
        lock.withLock {
            if let kept { failures[item.key] = kept }
            pastFailures.failed(item.key)
        }
        announce(item.key, .state)
        return thrown
    }

    /// A toggle's or a step's start is over: a failure of its player from
    /// here on is the playlist's to go on past (one it already had, the
    /// caller has seen in its status).
    func startDone(_ key: ItemKey) {
        lock.withLock { pastFailures.callerDone(key, failedAlready: players[key]?.currentState == .failed) }
    }
}

/// The player a window belongs to, set once it exists (the window's input
/// handler is made before the player).
private final class PlayerSlot: @unchecked Sendable {
    private let lock = NSLock()
    private weak var held: (any PlayerHandle)?

    var player: (any PlayerHandle)? {
        get { lock.withLock { held } }
        set { lock.withLock { held = newValue } }
    }
}
