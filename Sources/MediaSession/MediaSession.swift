import Foundation
import MediaCache
import MediaEngine
import MediaFeed
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
public final class MediaSession: @unchecked Sendable {
    /// The feed as last given (`update(feed:)` replaces it).
    public var feed: Feed { lock.withLock { currentFeed } }
    private let starter: ItemStarter
    private let positions: ResumePositions
    private let engine: any PlayerFactory

    /// Guards what follows. Nothing under it blocks: no file, database or
    /// network I/O, and no wait for a player.
    private let lock = NSLock()
    private var currentFeed: Feed
    /// Where each key's item is in `currentFeed.items`.
    private var index: [ItemKey: Int] = [:]
    private var players: [ItemKey: any PlayerHandle] = [:]
    private var current: ItemKey?
    private var downloads: [ItemKey: Double?] = [:]
    private var failures: [ItemKey: CommandError] = [:]
    /// The state last announced per item, so that a `state` event means a change.
    private var announced: [ItemKey: ItemState] = [:]
    /// Items whose start (a download, opening the file) is under way, and
    /// those of them a stop has cancelled.
    private var starting: Set<ItemKey> = []
    private var cancelledStarts: Set<ItemKey> = []
    /// Toggles that came while their item was starting: they report the
    /// state that start reaches (twenty cold toggles at once all said
    /// "stopped" but the first).
    private var startWaiters: [ItemKey: [CheckedContinuation<Void, Never>]] = [:]
    /// Volume and mute, for every player of the session.
    private var settings: AudioSettings
    /// The tracks each new player starts with: the options' and config's
    /// choices, with the subtitles' delay and whether they show as the
    /// last command left them (mpv keeps those from file to file).
    private var tracks: TrackSettings
    /// How the feed plays on; with shuffle, the order it plays in.
    private var playlist: Playlist
    private var windowKeymap = Keymap.standard
    /// Files and URLs played by themselves, outside the feed.
    private var oneOffs: [FeedItem] = []
    /// Items playing a live stream: its now-playing line and any notice.
    private var streams: [ItemKey: LiveInfo] = [:]
    /// The sleep timer, when one is set.
    var sleepTimer: SleepArm?
    /// Podcasting 2.0 chapters files read, by item.
    private var fetchedChapters: [ItemKey: [Chapter]] = [:]

    /// A sleep timer: playback seconds left (nil: at the current item's
    /// end), and the fade's end on the player it is armed on.
    struct SleepArm {
        var remaining: Double?
        var armedOn: ItemKey?
        var end: Double?
    }

    private struct LiveInfo {
        var title: String?
        var notice: String?
    }
    private var backgroundWork = 0
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []
    private var resumes = true
    private let subscribers = Broadcaster<ItemEvent>(buffering: .bufferingNewest(256))
    /// Each event carries the whole settings: a slow listener needs only the newest.
    private let settingsSubscribers = Broadcaster<SettingsEvent>(buffering: .bufferingNewest(8))

    /// Blocking engine calls (the virtual clock, waiting for a player to
    /// stop) run here, never on Swift's cooperative threads.
    private let blockingQueue = DispatchQueue(label: "mediaplay.session", attributes: .concurrent)

    /// Problems no command waits for (a chapters file that cannot be had):
    /// the background player's log.
    private let problems: (@Sendable (String) -> Void)?

    public init(
        feed: Feed, store: (any MediaStore)?, positions: StateStore?, engine: any PlayerFactory,
        settings: AudioSettings = AudioSettings(), playlist: PlaylistMode = PlaylistMode(autoplay: false), tracks: TrackSettings = TrackSettings(),
        problems: (@Sendable (String) -> Void)? = nil
    ) {
        self.problems = problems
        currentFeed = feed
        self.settings = settings
        self.tracks = tracks
        self.playlist = Playlist(items: feed.items, mode: playlist)
        starter = ItemStarter(store: store)
        self.positions = ResumePositions(store: positions)
        self.engine = engine
        index = Self.index(feed)
    }

    private static func index(_ feed: Feed) -> [ItemKey: Int] {
        var index: [ItemKey: Int] = [:]
        index.reserveCapacity(feed.items.count)
        for (offset, item) in feed.items.enumerated() where index[item.key] == nil { index[item.key] = offset }
        return index
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

    private func itemLocked(_ key: ItemKey) -> FeedItem? {
        index[key].map { currentFeed.items[$0] }
    }

    private func existing(_ key: ItemKey) throws(CommandError) -> FeedItem {
        guard let item = item(for: key) else {
            throw CommandError(.noSuchItem, "no item \"\(key)\" in the feed (it was removed; see 'mediaplay list')")
        }
        return item
    }

    // MARK: - Status

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

    /// The item's playback counters (`play --stats`).
    public func statistics(of key: ItemKey) -> PlaybackStatistics? {
        lock.withLock { players[key]?.currentStatistics }
    }

    private func statusLocked(_ item: FeedItem) -> ItemStatus {
        let key = item.key
        var status = ItemStatus(item: item.position, id: key, title: item.title, kind: item.kind, state: .idle, position: 0)
        if let player = players[key] {
            let isImage = player.mediaInfo?.isImage == true || item.kind == .image
            status.position = isImage ? 0 : player.currentPosition
            status.duration = player.mediaInfo.flatMap { $0.isImage ? nil : $0.duration }
            status.chapter = ChapterStatus(at: status.position, in: chapters(of: item, player: player))
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
                status.error = failures[key]?.message ?? Self.failureText(of: player, item)
            }
        } else if let progress = downloads[key] {
            status.state = .downloading
            status.progress = progress
        } else if starting.contains(key) {
            // Waiting for the server's first answer.
            status.state = .buffering
        } else if let failure = failures[key] {
            status.state = .failed
            status.error = failure.message
        } else if let url = item.source?.description, let saved = positions.position(for: url) {
            status.position = saved
        }
        if let live = streams[key], players[key] != nil {
            status.live = true
            status.duration = nil
            status.streamTitle = live.title
            status.notice = live.notice
        }
        return status
    }

    /// Changes as they happen, each with its kind (see `ItemEvent`).
    public func events() -> AsyncStream<ItemEvent> {
        subscribers.subscribe()
    }

    /// Sends the item's status now. `kind` is what happened; it is sent as a
    /// `state` event exactly when the state differs from the last one sent.
    private func announce(_ key: ItemKey, _ kind: ItemEvent.Kind) {
        lock.withLock {
            guard let item = itemLocked(key) else { return }
            let status = statusLocked(item)
            var kind = kind
            if announced[key] != status.state {
                announced[key] = status.state
                kind = .state
            } else if kind == .state {
                return  // nothing changed
            }
            // Under the lock: every subscriber sees one order of events.
            subscribers.send(ItemEvent(kind, status))
        }
    }

    // MARK: - Reload

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
            downloads = downloads.filter { survives($0.key) }
            failures = failures.filter { survives($0.key) }
            announced = announced.filter { survives($0.key) }
            currentFeed = newFeed
            index = newIndex
            // The order stays; new items join it (at random places under shuffle).
            playlist.update(items: newFeed.items)
            if let key = current, let player = players[key], let item = itemLocked(key) { player.setFollowed(playlist.successor(after: item) != nil) }
            // Said once more, as they stand now: stopped and out of the feed.
            for item in dropped { subscribers.send(ItemEvent(.state, statusLocked(item))) }
            return (dropped, stopped)
        }
        for player in stopped { player.stop() }
        return dropped
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
                    players[key] = nil
                    return .start(item.kind == .image ? 0 : player.currentPosition)
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
            if starting.contains(key) { return .join }
            if downloads[key] != nil { return .done }
            return .start(savedPositionLocked(item))
        }
        switch step {
        case .done:
            announce(key, .state)
            return status(of: item)
        case .join:
            await withCheckedContinuation { continuation in
                let waits = lock.withLock { () -> Bool in
                    guard starting.contains(key) else { return false }
                    startWaiters[key, default: []].append(continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
            return status(of: item)
        case let .close(player):
            player.stop()
            _ = await blocking { player.waitUntilFinished() }
            announce(key, .state)
            return status(of: item)
        case let .start(position):
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
        let (player, live) = lock.withLock { (players[key], streams[key] != nil) }
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

    /// Volume and mute as they stand.
    public var audioSettings: AudioSettings { lock.withLock { settings } }

    /// Sets the volume (0–150 %, clamped; mute is kept) for every player,
    /// the playing one at once; returns the new setting.
    @discardableResult
    public func setVolume(_ volume: Int) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.volume(.to(volume))) ?? $0 }
    }

    /// Moves the volume by `step` percentage points.
    @discardableResult
    public func changeVolume(by step: Int) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.volume(.by(step))) ?? $0 }
    }

    /// Sets the speed (0.25–4, clamped; the pitch is kept) for every player:
    /// the playing one goes on from where it stands.
    @discardableResult
    public func setSpeed(_ speed: Double) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.speed(.to(speed))) ?? $0 }
    }

    /// Multiplies the speed by `factor` (`[` and `]`: 1/1.1 and 1.1), to
    /// two decimals.
    @discardableResult
    public func changeSpeed(by factor: Double) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.speed(.times(factor))) ?? $0 }
    }

    /// Mutes, unmutes (`muted`), or toggles mute (nil); the level is kept.
    @discardableResult
    public func setMuted(_ muted: Bool?) -> AudioSettings {
        changeAudioSettings { $0 = $0.applying(.mute(muted)) ?? $0 }
    }

    func changeAudioSettings(_ change: (inout AudioSettings) -> Void) -> AudioSettings {
        let (changed, forPlayers, all) = lock.withLock {
            change(&settings)
            // Under the lock: every listener hears the changes in one order.
            settingsSubscribers.send(SettingsEvent(audio: settings, playlist: playlist.mode))
            return (settings, playerSettingsLocked(), Array(players.values))
        }
        for player in all { player.setAudioSettings(forPlayers) }
        return changed
    }

    /// With `lock` held: the settings a player is handed, ReplayGain's
    /// `auto` resolved: the album's gain while several items play on in
    /// order, the track's under shuffle or for an item alone.
    private func playerSettingsLocked() -> AudioSettings {
        settings.forPlayback(inAlbumOrder: playlist.mode.autoplay && !playlist.mode.shuffle && playlist.order.count > 1)
    }

    /// The settings after each change of the volume, mute, speed or the
    /// playlist's modes, whoever made it.
    public func settingsEvents() -> AsyncStream<SettingsEvent> {
        settingsSubscribers.subscribe()
    }

    // MARK: - Playlist

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
        let changed = lock.withLock {
            playlist.set(autoplay: autoplay, repeat: mode, shuffle: shuffle)
            if let key = current, let player = players[key], let item = itemLocked(key) { player.setFollowed(playlist.successor(after: item) != nil) }
            settingsSubscribers.send(SettingsEvent(audio: settings, playlist: playlist.mode))
            return playlist.mode
        }
        return changed
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
    private func playOn(after item: FeedItem) {
        let next: ItemKey? = lock.withLock {
            guard current == item.key else { return nil }
            return playlist.successor(after: item)
        }
        guard let next else { return }
        background { [weak self] in _ = try? await self?.play(next, from: next == item.key ? 0 : nil) }
    }

    /// Work the session starts by itself (autoplay's next item, a window's
    /// key), counted so that `settle()` can wait for it.
    private func background(_ work: @escaping @Sendable () async -> Void) {
        lock.withLock { backgroundWork += 1 }
        Task { [weak self] in
            await work()
            guard let self else { return }
            let waiting: [CheckedContinuation<Void, Never>] = self.lock.withLock {
                self.backgroundWork -= 1
                guard self.backgroundWork == 0 else { return [] }
                defer { self.settleWaiters.removeAll() }
                return self.settleWaiters
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// Returns once the work the session started by itself has finished:
    /// a test's deterministic drain ("nothing more starts"), instead of
    /// sleeping and hoping.
    public func settle() async {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> Bool in
                if backgroundWork == 0 { return true }
                settleWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
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
    private func requestStop(_ key: ItemKey?) -> (FeedItem, any PlayerHandle)? {
        let found: (FeedItem, any PlayerHandle)? = lock.withLock {
            if let key, starting.contains(key), let item = itemLocked(key) {
                cancelledStarts.insert(key)
                starter.cancel(item)
            }
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
        await blocking { [positions, engine] in
            for player in all { _ = player.waitUntilFinished() }
            engine.finish()
            positions.flush()
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

    // MARK: - Starting

    private func checkPlayable(_ item: FeedItem) throws(CommandError) {
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
    private func start(_ item: FeedItem, at position: Double, onProgress: (@Sendable (ItemStatus) -> Void)?) async throws(CommandError) -> ItemStatus {
        let key = item.key
        lock.withLock {
            starting.insert(key)
            cancelledStarts.remove(key)
        }
        // However it ends, the toggles that joined it hear the outcome.
        defer {
            let waiting = lock.withLock { startWaiters.removeValue(forKey: key) ?? [] }
            for continuation in waiting { continuation.resume() }
        }
        /// Whether a stop came, ending the start (once).
        func cancelled() -> Bool {
            lock.withLock {
                starting.remove(key)
                return cancelledStarts.remove(key) != nil
            }
        }
        let input: MediaInput
        do throws(ItemStarter.Failure) {
            input = try await starter.input(for: item) { [weak self] download in
                self?.downloadWent(download, item: item, onProgress: onProgress)
            }
        } catch {
            if cancelled() {
                announce(key, .state)
                return status(of: item)
            }
            // Listeners heard "buffering" while it started: the start is over.
            throw failedStart(item, error)
        }
        // A live stream: its titles and notices are the item's.
        let live: LiveStream? = if case let .source(source) = input { source as? LiveStream } else { nil }
        if let live {
            live.onTitle = { [weak self] title in self?.streamChanged(key) { $0 = LiveInfo(title: title) } }
            live.onNotice = { [weak self] notice in self?.streamChanged(key) { $0.notice = notice } }
        }
        lock.withLock { streams[key] = live == nil ? nil : LiveInfo() }
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
        let events = player.events()
        let opening = player.events()
        let registered: (replaced: (any PlayerHandle)?, ok: Bool) = lock.withLock {
            starting.remove(key)
            // Stopped meanwhile, or the feed dropped the item or changed its media.
            guard cancelledStarts.remove(key) == nil, let now = itemLocked(key), now.source == item.source else { return (nil, false) }
            pauseCurrentLocked(except: key)
            let resolved = playerSettingsLocked()
            if resolved != settings { player.setAudioSettings(resolved) }
            let replaced = players[key]
            players[key] = player
            current = key
            player.setFollowed(playlist.successor(after: now) != nil)
            failures[key] = nil
            return (replaced, true)
        }
        guard registered.ok else {
            player.stop()
            announce(key, .state)
            return status(of: item)
        }
        registered.replaced?.stop()
        if let url = item.source?.description { positions.startsAgain(url) }
        player.play()
        Task { [weak self] in
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
        if lock.withLock({ sleepTimer != nil }) { armSleep() }
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
            if isRegistered, let url = item.source?.description {
                switch state {
                // Played to the end: next time starts from the top, and the
                // playlist plays on.
                case .ended:
                    positions.remove(for: url)
                    if player.mediaInfo?.isImage != true { positions.markPlayed(url) }
                    // `sleep end`: the item's end is where playback stops.
                    let sleepsHere = lock.withLock {
                        guard let timer = sleepTimer, timer.armedOn == key, timer.remaining == nil else { return false }
                        sleepTimer = nil
                        return true
                    }
                    if !sleepsHere { playOn(after: item) }
                case .paused:
                    // The sleep timer's pause keeps the position like any pause.
                    if sleepEnded(key, position: player.currentPosition), player.mediaInfo?.isImage != true {
                        positions.save(player.currentPosition, for: url)
                    }
                // Cut short (a closed window included): the next toggle resumes here.
                case .stopped where player.mediaInfo?.isImage != true && lock.withLock({ streams[key] == nil }):
                    let position = player.currentPosition
                    if position > 0 { positions.save(position, for: url) }
                case .failed:
                    let message = Self.failureText(of: player, item)
                    let code: CommandError.Code = player.failedForInput ? .downloadFailed : .playbackFailed
                    lock.withLock { failures[key] = CommandError(code, message) }
                default: break
                }
            }
            announce(key, .state)
        }
    }

    // MARK: - Tracks

    /// A `subtitle`, `audio-track` or `sub-delay` command on what plays; the
    /// delay and whether subtitles show carry on to the next items.
    func changeTracks(_ command: PlayerCommand) throws(CommandError) -> ItemStatus? {
        let found: (key: ItemKey, player: any PlayerHandle)? = lock.withLock {
            guard let key = current, let player = players[key], player.currentState.isFinal == false else { return nil }
            return (key, player)
        }
        guard let found else { throw CommandError(.badRequest, "nothing is playing or paused (play a video with subtitles first)") }
        let changed = try found.player.changeTracks(command)
        lock.withLock {
            tracks.subtitleDelay = changed.subtitleDelay
            if case .subtitle = command { tracks.subtitle = changed.subtitleTrack == nil ? .off : (tracks.subtitle == .off ? .auto : tracks.subtitle) }
        }
        announce(found.key, .subtitle)
        return status(of: found.key)
    }

    // MARK: - Chapters

    /// An item's chapters: the feed's (a podcast's), else its file's.
    /// (Under `lock`.)
    func chapters(of item: FeedItem, player: any PlayerHandle) -> [Chapter] {
        if !item.chapters.isEmpty { return item.chapters }
        if let fetched = fetchedChapters[item.key], !fetched.isEmpty { return fetched }
        return player.mediaInfo?.chapters ?? []
    }

    /// An episode's Podcasting 2.0 chapters file, read once as it first
    /// plays (on the session's blocking queue: a network read); a file that
    /// cannot be had leaves the file's own chapters.
    private func fetchChapters(of item: FeedItem) {
        guard item.chapters.isEmpty, let url = item.chaptersURL else { return }
        let first = lock.withLock {
            guard fetchedChapters[item.key] == nil else { return false }
            fetchedChapters[item.key] = []
            return true
        }
        guard first else { return }
        blockingQueue.async { [weak self, problems] in
            let response: HTTPResponse
            do throws(TransferError) {
                response = try HTTPGet.fetch(url, maximumBytes: PodcastChapters.maximumBytes)
            } catch {
                problems?("chapters of \"\(item.title)\" not fetched: \(error.message)")
                return
            }
            guard let chapters = PodcastChapters.decode(response.body), !chapters.isEmpty else {
                problems?("chapters of \"\(item.title)\" not read: \(url.absoluteString.redactingUserinfo) holds no chapters in the Podcasting 2.0 JSON form")
                return
            }
            guard let self else { return }
            self.lock.withLock { self.fetchedChapters[item.key] = chapters }
            self.announce(item.key, .metadata)
        }
    }

    /// `chapter next|prev|N`: the current item to a chapter's start. `prev`
    /// more than two seconds into a chapter goes to its own start, as a
    /// player's previous-track key does.
    func chapterTarget(_ step: PlayerCommand.ChapterStep) throws(CommandError) -> (key: ItemKey, seconds: Double) {
        let found: (key: ItemKey, chapters: [Chapter], position: Double)? = lock.withLock {
            guard let key = current, let player = players[key], let item = itemLocked(key) else { return nil }
            return (key, chapters(of: item, player: player), player.currentPosition)
        }
        guard let found else { throw CommandError(.badRequest, "nothing is playing or paused (play an item with chapters first)") }
        guard !found.chapters.isEmpty else { throw CommandError(.badRequest, "the current item has no chapters") }
        let here = ChapterStatus(at: found.position, in: found.chapters).map { $0.number - 1 }
        let index: Int
        switch step {
        case .next:
            let next = (here ?? -1) + 1
            guard next < found.chapters.count else { throw CommandError(.noSuchItem, "already in the last chapter (\(found.chapters.count) of \(found.chapters.count))") }
            index = next
        case .previous:
            guard let here else { return (found.key, 0) }
            index = found.position - found.chapters[here].start > 2 ? here : max(0, here - 1)
        case let .number(number):
            guard (1...found.chapters.count).contains(number) else {
                throw CommandError(.noSuchItem, "no chapter \(number): the item has \(found.chapters.count) (1–\(found.chapters.count))")
            }
            index = number - 1
        }
        return (found.key, found.chapters[index].start)
    }

    // MARK: - Sleep timer

    /// The sleep timer as it stands.
    public var sleepStatus: SleepStatus {
        lock.withLock {
            guard let timer = sleepTimer else { return .off }
            return SleepStatus(remaining: timer.remaining, atEnd: timer.remaining == nil)
        }
    }

    /// Sets, cycles (nil: 15, 30, 60 min, off) or clears the sleep timer,
    /// and arms its fade on what plays.
    func setSleep(_ timer: PlayerCommand.SleepTimer?) -> SleepStatus {
        let wanted: PlayerCommand.SleepTimer = timer ?? {
            let left = lock.withLock { sleepTimer?.remaining }
            guard let left else { return lock.withLock { sleepTimer == nil } ? .after(15 * 60) : .off }
            if left < 15 * 60 { return .after(30 * 60) }
            if left < 30 * 60 { return .after(60 * 60) }
            return .off
        }()
        let armed: (any PlayerHandle)? = lock.withLock {
            let previous = sleepTimer?.armedOn.flatMap { players[$0] }
            switch wanted {
            case .off: sleepTimer = nil
            case let .after(seconds): sleepTimer = SleepArm(remaining: seconds)
            case .endOfItem: sleepTimer = SleepArm(remaining: nil)
            }
            return previous
        }
        armed?.setFadeOut(nil)
        armSleep()
        let status = sleepStatus
        lock.withLock { settingsSubscribers.send(SettingsEvent(audio: settings, playlist: playlist.mode)) }
        return status
    }

    /// Arms the timer's fade on the current player: the last ten seconds of
    /// playback (the whole time if shorter) fade out, and it pauses at the
    /// end. A time beyond the item's end carries over to the next item.
    func armSleep() {
        let target: (player: any PlayerHandle, key: ItemKey, remaining: Double?, speed: Double)? = lock.withLock {
            guard let timer = sleepTimer, let key = current, let player = players[key] else { return nil }
            return (player, key, timer.remaining, settings.speed)
        }
        guard let target, target.player.mediaInfo?.isImage != true else { return }
        let position = target.player.currentPosition
        let end: Double
        if let remaining = target.remaining {
            end = position + remaining * target.speed
        } else {
            guard let duration = target.player.mediaInfo?.duration else { return }
            end = duration
        }
        let start = max(position, end - 10 * target.speed)
        target.player.setFadeOut(start...max(start, end))
        lock.withLock {
            sleepTimer?.armedOn = target.key
            sleepTimer?.end = end
        }
    }

    /// A position of the armed player: the time left follows it.
    func sleepFollows(_ key: ItemKey, position: Double) {
        lock.withLock {
            guard let timer = sleepTimer, timer.armedOn == key, timer.remaining != nil, let end = timer.end else { return }
            sleepTimer?.remaining = max(0, (end - position) / settings.speed)
        }
    }

    /// The armed player paused at the fade's end: the timer is done.
    /// Returns true when it was the timer's pause.
    @discardableResult
    func sleepEnded(_ key: ItemKey, position: Double) -> Bool {
        lock.withLock {
            guard let timer = sleepTimer, timer.armedOn == key, let end = timer.end, position >= end - 0.05 else { return false }
            sleepTimer = nil
            return true
        }
    }

    /// A player's failure named by its item, never by the file the engine
    /// opened (a cache entry's hash).
    static func failureText(of player: any PlayerHandle, _ item: FeedItem) -> String {
        "item \(item.position) \"\(item.title)\": " + (player.failureReasonOnly ?? "playback failed")
    }

    /// A window's keys and its close button, as commands on its item.
    private func windowInput(_ input: VideoWindowInput, for key: ItemKey, from player: any PlayerHandle) {
        guard lock.withLock({ players[key] === player }) else { return }
        guard case let .key(pressed) = input, let command = keymap.command(for: pressed) else {
            if input == .closed { _ = requestStop(key) }
            return
        }
        // The window's own item is what its keys act on.
        let item = ItemSelector.id(key.rawValue)
        switch command {
        case .quit: _ = requestStop(key)
        case .toggle(nil): togglePause(key)
        case let .seek(seek, nil): run(.seek(seek, item))
        case .stop(nil): run(.stop(item))
        case let .play(nil, start): run(.play(item, from: start))
        default: run(command)
        }
    }

    /// A window key's command, as every key's.
    private func run(_ command: PlayerCommand) {
        performDetached(command)
    }

    /// A command from a front end that waits for no reply (a key): at once on
    /// the caller's thread when it waits for nothing, else as counted
    /// background work (`settle`). A refusal (nothing to seek in) is dropped:
    /// there is no one to tell, and it is never tried a second time.
    public func performDetached(_ command: PlayerCommand) {
        do {
            if try performAtOnce(command) != nil { return }
        } catch {
            return
        }
        background { [weak self] in _ = try? await self?.performWaiting(command) }
    }

    /// Whether a start resumes where the item was left (config.toml's
    /// `start = "beginning"` makes every start begin at 0; positions are
    /// still kept).
    public var resumesItems: Bool {
        get { lock.withLock { resumes } }
        set { lock.withLock { resumes = newValue } }
    }

    /// What keys in a window do (the front end's keymap; config.toml's [keys]).
    public var keymap: Keymap {
        get { lock.withLock { windowKeymap } }
        set { lock.withLock { windowKeymap = newValue } }
    }

    /// A live stream's now-playing line or notice changed: kept, and said.
    private func streamChanged(_ key: ItemKey, _ change: (inout LiveInfo) -> Void) {
        let known = lock.withLock { () -> Bool in
            guard streams[key] != nil else { return false }
            change(&streams[key]!)
            return true
        }
        if known { announce(key, .metadata) }
    }

    /// A whole-file download under way for `item`, kept for its status.
    private func downloadWent(_ download: ItemStarter.Download, item: FeedItem, onProgress: (@Sendable (ItemStatus) -> Void)?) {
        let key = item.key
        switch download {
        case .began:
            lock.withLock {
                downloads[key] = .some(nil)
                failures[key] = nil
            }
            announce(key, .state)
        case let .progress(fraction):
            lock.withLock { downloads[key] = .some(fraction) }
            announce(key, .progress)
            if let status = status(of: key) { onProgress?(status) }
        case .ended:
            lock.withLock { _ = downloads.removeValue(forKey: key) }
        }
    }

    /// Records and announces why a start failed; the error to throw names
    /// the item (the status's error does not: front ends show it beside the item).
    private func failedStart(_ item: FeedItem, _ failure: ItemStarter.Failure) -> CommandError {
        let key = item.key
        let kept: CommandError?
        let thrown: CommandError
        switch failure {
        case let .missing(path):
            kept = CommandError(.noSuchItem, "missing: no readable file at \(path)")
            thrown = CommandError(.noSuchItem, "item \(item.position): no readable file at \(path)")
        case let .download(reason):
            // A download a stop cancelled did not fail (`cancelled` said so before).
            kept = CommandError(.downloadFailed, "download failed: \(reason)")
            thrown = CommandError(.downloadFailed, "item \(item.position) \"\(item.title)\": download failed: \(reason)")
        case .noCache:
            kept = nil
            thrown = CommandError(.downloadFailed, "item \(item.position) needs a download and no cache is open")
        case .textOnly:
            kept = nil
            thrown = CommandError(.invalidItem, "item \(item.position) \"\(item.title)\" is text only: it has no media to play")
        }
        if let kept { lock.withLock { failures[key] = kept } }
        announce(key, .state)
        return thrown
    }

    // MARK: - Helpers (with `lock` held)

    /// Pauses the active item if it is another one (a picture closes).
    private func pauseCurrentLocked(except key: ItemKey) {
        guard let active = current, active != key, let player = players[active] else { return }
        if player.mediaInfo?.isImage == true {
            player.stop()
        } else {
            player.pause()
            if let item = itemLocked(active) { savePositionLocked(item, player) }
        }
    }

    /// Saves where the item stands (memory now, the database on its own
    /// queue); a finished player, a picture or a live stream has nothing to resume.
    private func savePositionLocked(_ item: FeedItem, _ player: any PlayerHandle) {
        guard let url = item.source?.description, !player.currentState.isFinal, player.mediaInfo?.isImage != true, streams[item.key] == nil else { return }
        positions.save(player.currentPosition, for: url)
    }

    /// Reads the item's saved position again before a start (off the pool).
    private func refreshSavedPosition(_ item: FeedItem) async {
        guard item.kind != .image, let url = item.source?.description else { return }
        await blocking { [positions] in positions.refresh(url) }
    }

    private func savedPositionLocked(_ item: FeedItem) -> Double {
        guard resumes, item.kind != .image, let url = item.source?.description else { return 0 }
        return positions.position(for: url) ?? 0
    }

    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            blockingQueue.async { continuation.resume(returning: body()) }
        }
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
