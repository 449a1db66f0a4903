import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaState

/// The command layer: the one place where playback is controlled. Every
/// front end (the socket, `play`'s keys, a window's keys, browse, scripts)
/// calls these methods and nothing else touches a player
/// (docs/ARCHITECTURE.md). Items are named by their key; a number a user
/// typed is resolved once, at the edge, with `item(_:)`.
///
/// - toggling an idle item downloads it if needed, then plays it;
/// - toggling the playing item pauses it, a paused one resumes exactly;
/// - toggling another item pauses the current one (its player, and so its
///   exact position, is kept) and plays the new one;
/// - a stopped item resumes where it stood, an ended one plays from the start;
/// - an image opens its window, and a second toggle closes it.
///
/// Positions are saved (when a store is given) on pause, stop and switch,
/// every few seconds while playing and at shutdown, so they survive a restart.
///
/// This file holds the state and the commands on one item; the rest is in
/// `MediaSession+*.swift`, and what the session keeps is in components of
/// their own (`StartsUnderWay`, `SleepTimer`, `ChapterBook`, `LiveStreams`,
/// `Downloads`, `Failures`, `Announcements`, `BackgroundWork`, `Playlist`):
/// values with no lock of their own, read and changed under `lock`.
public final class MediaSession: @unchecked Sendable {
    /// The feed as last given (`update(feed:)` replaces it).
    public var feed: Feed { lock.withLock { currentFeed } }
    let starter: ItemStarter
    let positions: ResumePositions
    let engine: any PlayerFactory

    /// Guards what follows, the components included. Nothing under it
    /// blocks: no file, database or network I/O, and no wait for a player.
    /// Lock order: this lock, then a player's `condition` (reading a
    /// player's state), then a `Broadcaster`'s mutex (sending an event).
    /// Players never take this lock.
    let lock = NSLock()
    var currentFeed: Feed
    /// Where each key's item is in `currentFeed.items`.
    var index: [ItemKey: Int] = [:]
    var players: [ItemKey: any PlayerHandle] = [:]
    var current: ItemKey?
    var downloads = Downloads()
    var failures = Failures()
    var announced = Announcements()
    var starts = StartsUnderWay()
    /// Volume and mute, for every player of the session.
    var settings: AudioSettings
    /// The tracks each new player starts with: the options' and config's
    /// choices, with the subtitles' delay and whether they show as the
    /// last command left them (mpv keeps those from file to file).
    var tracks: TrackSettings
    /// How the feed plays on; with shuffle, the order it plays in.
    var playlist: Playlist
    var windowKeymap = Keymap.standard
    /// Files and URLs played by themselves, outside the feed.
    var oneOffs: [FeedItem] = []
    var streams = LiveStreams()
    var sleepTimer = SleepTimer()
    var chapterBook = ChapterBook()
    var backgroundWork = BackgroundWork()
    var pastFailures = PastFailures()
    /// Where each item's player started (a resume, `--start`, a step).
    var startedFrom: [ItemKey: Double] = [:]
    var resumes = true
    let subscribers = Broadcaster<ItemEvent>(buffering: .bufferingNewest(256))
    /// Each event carries the whole settings: a slow listener needs only the newest.
    let settingsSubscribers = Broadcaster<SettingsEvent>(buffering: .bufferingNewest(8))
    /// What keys did (`performDetached`): `play`'s on-screen messages.
    let keyFeedbackSubscribers = Broadcaster<KeyFeedback>(buffering: .bufferingNewest(16))

    /// Blocking engine calls (the virtual clock, waiting for a player to
    /// stop) and the store's one-shot fetches run here, never on Swift's
    /// cooperative threads: each on a thread of its own (`BlockingThreads`).
    let blockingQueue = BlockingThreads(name: "mediaplay.session")

    /// Problems no command waits for (a chapters file that cannot be had):
    /// the background player's log.
    let problems: (@Sendable (String) -> Void)?
    /// Told of each start and each end played (a server that keeps plays).
    let reports: (any PlayReporting)?
    /// The players' event loops still running: `shutdown` waits for them
    /// to have heard their players' ends (a song played to its end is
    /// reported from there) before it sends the last reports.
    let eventLoops = RunningLoops()

    public init(
        feed: Feed, store: (any MediaStore)?, documents: (any DocumentFetcher)? = nil, positions: StateStore?, engine: any PlayerFactory,
        settings: AudioSettings = AudioSettings(), playlist: PlaylistMode = PlaylistMode(autoplay: false), tracks: TrackSettings = TrackSettings(),
        pages: (any PageResolver)? = nil, problems: (@Sendable (String) -> Void)? = nil, reports: (any PlayReporting)? = nil
    ) {
        self.problems = problems
        self.reports = reports
        currentFeed = feed
        self.settings = settings
        self.tracks = tracks
        self.playlist = Playlist(items: feed.items, mode: playlist)
        starter = ItemStarter(store: store, documents: documents, pages: PageInputs(resolver: pages))
        self.positions = ResumePositions(store: positions)
        self.engine = engine
        index = Self.index(feed)
    }

    // MARK: - Items

    /// The item a user names (its number in the feed, or its id): the one
    /// place a number becomes a key. `no-such-item` otherwise.
    public func item(_ selector: ItemSelector) throws(CommandError) -> FeedItem {
        let feed = self.feed
        guard let item = feed.item(matching: selector) else {
            let range = feed.items.isEmpty ? "the feed is empty" : "use 1–\(feed.items.count) or an id from 'mediaplay list'"
            throw CommandError(.noSuchItem, "no item \"\(selector)\" in the feed (\(range))")
        }
        return item
    }

    /// The item with this key in the current feed.
    public func item(for key: ItemKey) -> FeedItem? {
        lock.withLock { itemLocked(key) }
    }

    func itemLocked(_ key: ItemKey) -> FeedItem? {
        index[key].map { currentFeed.items[$0] }
    }

    private func existing(_ key: ItemKey) throws(CommandError) -> FeedItem {
        guard let item = item(for: key) else {
            throw CommandError(.noSuchItem, "no item \"\(key)\" in the feed (it was removed; see 'mediaplay list')")
        }
        return item
    }

    // MARK: - Commands

    /// Plays, pauses or resumes the item (see the type's summary); returns
    /// its status once playback has started or paused (after any download).
    @discardableResult
    public func toggle(_ key: ItemKey, onProgress: (@Sendable (ItemStatus) -> Void)? = nil) async throws(CommandError) -> ItemStatus {
        let item = try existing(key)
        try checkPlayable(item)
        // Only a start reads the saved position (a pause or resume answers at once).
        if lock.withLock({ players[key].map { $0.currentState.isFinal } ?? true }) { await refreshSavedPosition(item) }
        enum Step { case done, join, close(any PlayerHandle), start(Double) }
        let step: Step = lock.withLock {
            if let player = players[key] {
                if pauseOrResumeLocked(item, player) { return .done }
                switch player.currentState {
                case .starting, .playing, .buffering:
                    // A second toggle closes a picture.
                    if current == key { current = nil }
                    return .close(player)
                case .paused:
                    return .done  // resumed above
                case .stopped:
                    // Where it stood, unless it was nearly finished (then from the top).
                    players[key] = nil
                    let position = player.currentPosition
                    return .start(item.kind == .image || ResumePositions.isPlayed(at: position, of: player.mediaInfo?.duration) ? 0 : position)
                case .ended:
                    // Played out: from the top (what a periodic save kept is void).
                    players[key] = nil
                    if let url = item.source?.description { positions.remove(for: url) }
                    return .start(0)
                case .failed:
                    players[key] = nil
                    return .start(savedPositionLocked(item))
                }
            }
            if starts.contains(key) { return .join }
            if downloads[key] != nil { return .done }
            return .start(savedPositionLocked(item))
        }
        switch step {
        case .done:
            announce(key, .state)
            return status(of: item)
        case .join:
            // The start under way says how it ended (`start` resumes us).
            await parked { starts.join(key, $0) }
            return status(of: item)
        case let .close(player):
            player.stop()
            _ = await blocking { player.waitUntilFinished() }
            announce(key, .state)
            return status(of: item)
        case let .start(position):
            // A toggle answers with its item's failure: nothing else starts.
            lock.withLock { pastFailures.callerHandles(key) }
            defer { startDone(key) }
            return try await start(item, at: position, onProgress: onProgress)
        }
    }

    /// A toggle that pauses or resumes, done at once on the caller's thread
    /// (no task, no wait): nil when the toggle has to start, restart or
    /// close the item, which only `toggle` does.
    public func toggleAtOnce(_ key: ItemKey) throws(CommandError) -> ItemStatus? {
        let item = try existing(key)
        try checkPlayable(item)
        let done = lock.withLock { players[key].map { pauseOrResumeLocked(item, $0) } ?? false }
        guard done else { return nil }
        announce(key, .state)
        return status(of: item)
    }

    /// Pauses a playing item or resumes a paused one (its position saved on
    /// a pause); false for a player that is not running, and for a picture
    /// that shows (a toggle closes it).
    private func pauseOrResumeLocked(_ item: FeedItem, _ player: any PlayerHandle) -> Bool {
        switch player.currentState {
        case .starting, .playing, .buffering:
            guard player.mediaInfo?.isImage != true && item.kind != .image else { return false }
            player.pause()
            savePositionLocked(item, player)
            return true
        case .paused:
            pauseCurrentLocked(except: item.key)
            current = item.key
            player.resume()
            return true
        case .stopped, .ended, .failed:
            return false
        }
    }

    /// Plays the item from `position` (its saved position when nil), whatever
    /// it was doing: `play`'s one item, a script's fresh start.
    @discardableResult
    public func play(_ key: ItemKey, from position: Double? = nil, onProgress: (@Sendable (ItemStatus) -> Void)? = nil) async throws(CommandError) -> ItemStatus {
        let item = try existing(key)
        try checkPlayable(item)
        await refreshSavedPosition(item)
        let (old, from): ((any PlayerHandle)?, Double) = lock.withLock {
            let old = players.removeValue(forKey: key)
            return (old, position ?? savedPositionLocked(item))
        }
        old?.stop()
        return try await start(item, at: from, onProgress: onProgress)
    }

    /// Pauses the item if it plays, resumes it if paused; nothing otherwise
    /// (space in a window and in `play`).
    public func togglePause(_ key: ItemKey) {
        let state = lock.withLock { players[key]?.currentState }
        if state == .paused { resume(key) } else { pause(key) }
    }

    public func pause(_ key: ItemKey) {
        let changed: Bool = lock.withLock {
            guard let player = players[key], let item = itemLocked(key), [PlayerState.starting, .playing, .buffering].contains(player.currentState) else { return false }
            player.pause()
            savePositionLocked(item, player)
            return true
        }
        if changed { announce(key, .state) }
    }

    public func resume(_ key: ItemKey) {
        let changed: Bool = lock.withLock {
            guard let player = players[key], player.currentState == .paused else { return false }
            pauseCurrentLocked(except: key)
            current = key
            player.resume()
            return true
        }
        if changed { announce(key, .state) }
    }

    /// Moves the item's playback to `seconds` (clamped to the media), paused or not.
    public func seek(_ key: ItemKey, to seconds: Double) throws(CommandError) {
        let (player, live) = lock.withLock { (players[key], streams.isLive(key)) }
        guard let player, !player.currentState.isFinal else {
            throw CommandError(.badRequest, "item \(item(for: key)?.position ?? 0) is not playing or paused")
        }
        if live {
            let item = item(for: key)
            throw CommandError(.badRequest, "item \(item?.position ?? 0) \"\(item?.title ?? "")\" is a live stream: it cannot seek")
        }
        // The player reports the new position itself (clamped to the media
        // there, or to a sane bound when its length is unknown).
        player.seek(to: CheckedNumber.position(seconds))
    }

    /// Moves by `seconds` (back when negative) from where the item stands.
    public func seek(_ key: ItemKey, by seconds: Double) throws(CommandError) {
        guard let player = lock.withLock({ players[key] }), !player.currentState.isFinal else {
            throw CommandError(.badRequest, "item \(item(for: key)?.position ?? 0) is not playing or paused")
        }
        try seek(key, to: CheckedNumber.position(player.currentPosition + seconds))
    }

    /// Stops the item (the active one when nil): it is cut short, not ended,
    /// so its position is saved and the next toggle resumes there. Returns
    /// its status once stopped, nil when nothing was active.
    @discardableResult
    public func stop(_ key: ItemKey? = nil) async -> ItemStatus? {
        guard let (item, player) = requestStop(key) else { return key.flatMap { status(of: $0) } }
        _ = await blocking { player.waitUntilFinished() }
        announce(item.key, .state)
        return status(of: item.key)
    }

    /// The part of `stop` that does not wait (a window's close, on its own
    /// thread). A start under way (a download, opening the file) is
    /// cancelled: it ends without playing.
    func requestStop(_ key: ItemKey?) -> (FeedItem, any PlayerHandle)? {
        let found: (FeedItem, any PlayerHandle)? = lock.withLock {
            if let key, let item = itemLocked(key), starts.cancel(key) { starter.cancel(item) }
            guard let key = key ?? current, let player = players[key], let item = itemLocked(key) else { return nil }
            savePositionLocked(item, player)
            if current == key { current = nil }
            return (item, player)
        }
        guard let (item, player) = found else { return nil }
        player.stop()
        // A stopped item's download stops too (paused ones go on): it would
        // take bandwidth, and a connection, from what plays next. The part
        // downloaded stays and resumes the next time.
        starter.cancel(item)
        return found
    }

    /// Stops every player and saves positions (daemon exit, end of a script).
    public func shutdown() async {
        savePositions()
        let all = lock.withLock {
            defer { current = nil }
            return Array(players.values)
        }
        for player in all { player.stop() }
        await blocking { [positions, engine, reports, eventLoops] in
            for player in all { _ = player.waitUntilFinished() }
            // A player's stream ends with its final state: its loop ends once
            // it has heard it (one started since is not waited for).
            eventLoops.waitForEnd(of: all)
            engine.finish()
            positions.flush()
            reports?.flush()
        }
    }

    /// Saves the positions of the playing and paused items (the daemon calls
    /// this every few seconds of play).
    public func savePositions() {
        lock.withLock {
            for (key, player) in players where player.currentState.isActive {
                if let item = itemLocked(key) { savePositionLocked(item, player) }
            }
        }
    }

    /// Virtual clock: lets `seconds` of media play on the active item (no
    /// time passes for a paused or idle session).
    public func advanceVirtualClock(by seconds: Double) async {
        guard let player = lock.withLock({ current.flatMap { players[$0] } }) else { return }
        await blocking { player.advanceVirtualClock(by: seconds) }
    }

    /// Whether the item's file is at hand (a local file, or in the cache).
    public func isCached(_ key: ItemKey) -> Bool {
        item(for: key).map(starter.isCached) ?? false
    }

    // MARK: - Helpers (with `lock` held)

    /// Pauses the active item if it is another one (a picture closes).
    func pauseCurrentLocked(except key: ItemKey) {
        guard let active = current, active != key, let player = players[active] else { return }
        if player.mediaInfo?.isImage == true {
            player.stop()
        } else {
            player.pause()
            if let item = itemLocked(active) { savePositionLocked(item, player) }
        }
    }

    /// Keeps where the item stands (memory now, the database on its own
    /// queue), by the one rule (`ResumePositions.keep`): nearly finished,
    /// it is marked played and starts over next time. A finished player, a
    /// picture or a live stream has nothing to resume.
    func savePositionLocked(_ item: FeedItem, _ player: any PlayerHandle) {
        guard let url = item.source?.description, !player.currentState.isFinal, player.mediaInfo?.isImage != true, !streams.isLive(item.key) else { return }
        positions.keep(player.currentPosition, of: player.mediaInfo?.duration, for: url)
    }

    private func savedPositionLocked(_ item: FeedItem) -> Double {
        guard resumes, item.kind != .image, let url = item.source?.description else { return 0 }
        return positions.position(for: url) ?? 0
    }

    // MARK: - Waiting (never on the cooperative pool)

    /// Reads the item's saved position again before a start (off the pool).
    private func refreshSavedPosition(_ item: FeedItem) async {
        guard item.kind != .image, let url = item.source?.description else { return }
        await blocking { [positions] in positions.refresh(url) }
    }

    func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            blockingQueue.async { continuation.resume(returning: body()) }
        }
    }

    /// Waits until what `park` (called under the lock) keeps the
    /// continuation for has happened: a start ending, background work
    /// draining. It returns at once when `park` declines (nothing to wait for).
    func parked(_ park: (CheckedContinuation<Void, Never>) -> Bool) async {
        await withCheckedContinuation { continuation in
            if !lock.withLock({ park(continuation) }) { continuation.resume() }
        }
    }
}

/// The players whose event loops still run, and a wait for some of them
/// to end.
final class RunningLoops: @unchecked Sendable {
    private let condition = NSCondition()
    // Under `condition`: per player, its loops running.
    private var running: [ObjectIdentifier: Int] = [:]

    func enter(_ player: any PlayerHandle) {
        condition.withLock { running[ObjectIdentifier(player), default: 0] += 1 }
    }

    func leave(_ player: any PlayerHandle) {
        condition.withLock {
            let key = ObjectIdentifier(player)
            running[key] = (running[key] ?? 1) > 1 ? running[key]! - 1 : nil
            condition.broadcast()
        }
    }

    /// Blocks (off the cooperative pool) until the loops of `players` have
    /// ended; a player started after them is not waited for.
    func waitForEnd(of players: [any PlayerHandle]) {
        let keys = players.map { ObjectIdentifier($0) }
        condition.withLock {
            while keys.contains(where: { running[$0] != nil }) { condition.wait() }
        }
    }
}
