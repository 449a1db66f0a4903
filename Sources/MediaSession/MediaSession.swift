import Foundation
import MediaCache
import MediaEngine
import MediaFeed

/// Why a session request failed; `code` is the protocol's error code.
public struct SessionError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable, Codable {
        case noSuchItem = "no-such-item"
        case invalidItem = "invalid-item"
        case downloadFailed = "download-failed"
        case playbackFailed = "playback-failed"
        case badRequest = "bad-request"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// Where a session's players send their output.
public struct SessionOutputs: Sendable {
    public var clock: PlaybackClock
    public var makeAudioSink: @Sendable () -> (any AudioSink)?
    public var makeVideoSink: @Sendable (FeedItem, MediaInfo, Player) -> (any VideoSink)?

    public init(
        clock: PlaybackClock = .realTime,
        makeAudioSink: @escaping @Sendable () -> (any AudioSink)?,
        makeVideoSink: @escaping @Sendable (FeedItem, MediaInfo, Player) -> (any VideoSink)?
    ) {
        self.clock = clock
        self.makeAudioSink = makeAudioSink
        self.makeVideoSink = makeVideoSink
    }
}

/// The app core over feed, cache and engine: one active item at a time and
/// the toggle semantics every front end shares (`toggle`, the daemon,
/// `script`, `browse`).
///
/// - toggling an idle item downloads it if needed, then plays it;
/// - toggling the playing item pauses it, a paused one resumes exactly;
/// - toggling another item pauses the current one (its player, and so its
///   exact position, is kept) and plays the new one;
/// - an ended item plays again from the start;
/// - an image opens its window, and a second toggle closes it.
///
/// Positions are saved (when a store is given) on pause, on switching, every
/// few seconds while playing and at shutdown, so they survive a restart.
public final class MediaSession: @unchecked Sendable {
    /// The feed as last given (`update(feed:)` replaces it).
    public var feed: Feed { lock.withLock { currentFeed } }
    private let cache: MediaCache?
    private let positions: PositionStore?
    private let outputs: SessionOutputs

    private let lock = NSLock()
    // Guarded by `lock`.
    private var currentFeed: Feed
    private var players: [Int: Player] = [:]
    private var current: Int?
    private var downloads: [Int: Double?] = [:]
    private var failures: [Int: String] = [:]
    private var subscribers: [Int: AsyncStream<ItemStatus>.Continuation] = [:]
    private var nextSubscriber = 0

    /// Blocking engine calls (the virtual clock, waiting for a player to
    /// stop) run here, never on Swift's cooperative threads.
    private let blockingQueue = DispatchQueue(label: "mediaplay.session", attributes: .concurrent)

    public init(feed: Feed, cache: MediaCache?, positions: PositionStore?, outputs: SessionOutputs) {
        currentFeed = feed
        self.cache = cache
        self.positions = positions
        self.outputs = outputs
    }

    /// The item a selector names (position or id), or `no-such-item`.
    public func item(_ selector: String) throws(SessionError) -> FeedItem {
        let feed = self.feed
        guard let item = feed.item(matching: selector) else {
            let range = feed.items.isEmpty ? "the feed is empty" : "use 1–\(feed.items.count) or an id from 'mediaplay list'"
            throw SessionError(.noSuchItem, "no item \"\(selector)\" in the feed (\(range))")
        }
        return item
    }

    // MARK: - Status

    public func status(of item: FeedItem) -> ItemStatus {
        lock.withLock { statusLocked(item) }
    }

    /// The active item's status, if any.
    public func currentStatus() -> ItemStatus? {
        lock.withLock { current.flatMap { position in currentFeed.items.first { $0.position == position } }.map(statusLocked) }
    }

    /// Every item's status.
    public func allStatuses() -> [ItemStatus] {
        lock.withLock { currentFeed.items.map(statusLocked) }
    }

    private func statusLocked(_ item: FeedItem) -> ItemStatus {
        var status = ItemStatus(item: item.position, id: item.id, title: item.title, kind: item.kind?.name, state: .idle, position: 0)
        if let player = players[item.position] {
            status.position = player.currentPosition
            status.duration = player.mediaInfo.flatMap { $0.isImage ? nil : $0.duration }
            switch player.currentState {
            // Starting counts as playing: what the user asked for is under way.
            case .loading, .playing: status.state = .playing
            case .buffering:
                status.state = .buffering
                status.progress = player.bufferFill
            case .paused: status.state = .paused
            // Stopped by its window (closed, q): idle where it stood, not ended.
            case .ended: status.state = player.wasStopped ? .idle : .ended
            case let .failed(message):
                status.state = .failed
                status.error = message
            }
        } else if let progress = downloads[item.position] {
            status.state = .downloading
            status.progress = progress
        } else if let failure = failures[item.position] {
            status.state = .failed
            status.error = failure
        } else if let url = item.source?.description, let saved = positions?.position(for: url) {
            status.position = saved
        }
        return status
    }

    /// Status changes as they happen (state changes and, while playing,
    /// positions about ten times a second).
    public func events() -> AsyncStream<ItemStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ItemStatus.self, bufferingPolicy: .bufferingNewest(256))
        let key = lock.withLock {
            nextSubscriber += 1
            subscribers[nextSubscriber] = continuation
            return nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.lock.withLock { self?.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    private func announce(_ item: FeedItem) {
        let (status, targets) = lock.withLock { (statusLocked(resolvedLocked(item) ?? item), Array(subscribers.values)) }
        for continuation in targets { continuation.yield(status) }
    }

    /// With `lock` held: `item` as the current feed has it (its position
    /// may have moved in a reloaded feed); nil if it is gone.
    private func resolvedLocked(_ item: FeedItem) -> FeedItem? {
        if let same = currentFeed.items.first(where: { $0.position == item.position }), same.id == item.id, same.source == item.source {
            return same
        }
        return currentFeed.items.first { $0.id == item.id && $0.source == item.source }
    }

    // MARK: - Reload

    /// Replaces the feed (a refresh) and keeps what plays: players, downloads
    /// and failures follow their items by id to their new positions. Items
    /// no longer in the feed are stopped (their positions saved); they are
    /// returned.
    @discardableResult
    public func update(feed newFeed: Feed) -> [FeedItem] {
        let (dropped, stopped): ([FeedItem], [Player]) = lock.withLock {
            let old = currentFeed
            func newPosition(_ position: Int) -> Int? {
                guard let item = old.items.first(where: { $0.position == position }) else { return nil }
                return newFeed.items.first { $0.id == item.id && $0.source == item.source }?.position
            }
            var dropped: [FeedItem] = []
            var stopped: [Player] = []
            var movedPlayers: [Int: Player] = [:]
            for (position, player) in players {
                if let moved = newPosition(position) {
                    movedPlayers[moved] = player
                } else if let item = old.items.first(where: { $0.position == position }) {
                    savePosition(item, player)
                    dropped.append(item)
                    stopped.append(player)
                }
            }
            players = movedPlayers
            current = current.flatMap(newPosition).flatMap { movedPlayers[$0] != nil ? $0 : nil }
            downloads = Dictionary(downloads.compactMap { key, value in newPosition(key).map { ($0, value) } }, uniquingKeysWith: { first, _ in first })
            failures = Dictionary(failures.compactMap { key, value in newPosition(key).map { ($0, value) } }, uniquingKeysWith: { first, _ in first })
            currentFeed = newFeed
            return (dropped, stopped)
        }
        for player in stopped { player.stop() }
        return dropped
    }

    // MARK: - Toggle

    /// Plays, pauses or resumes `item` (see the type's summary); returns the
    /// status once playback has started or paused (after any download).
    @discardableResult
    public func toggle(_ item: FeedItem, onProgress: (@Sendable (ItemStatus) -> Void)? = nil) async throws(SessionError) -> ItemStatus {
        guard item.isValid else {
            throw SessionError(.invalidItem, "item \(item.position) \"\(item.title)\" is invalid: \(item.invalidReason ?? "unusable record")")
        }
        enum Step { case done(ItemStatus), start(Double) }
        let step: Step = lock.withLock {
            if let player = players[item.position] {
                switch player.currentState {
                case .loading, .playing, .buffering:
                    if player.mediaInfo?.isImage == true {
                        player.stop()
                        players[item.position] = nil
                        if current == item.position { current = nil }
                        return .done(statusLocked(item))
                    }
                    player.pause()
                    savePosition(item, player)
                    return .done(statusLocked(item))
                case .paused:
                    pauseCurrent(except: item.position)
                    current = item.position
                    player.resume()
                    return .done(statusLocked(item))
                case .ended, .failed:
                    players[item.position] = nil
                    // A window closed mid-way resumes where it stood; played out starts over.
                    let resume = player.wasStopped && player.mediaInfo?.isImage != true ? player.currentPosition : 0
                    return .start(resume)
                }
            }
            if downloads[item.position] != nil { return .done(statusLocked(item)) }
            let saved = item.source.flatMap { positions?.position(for: $0.description) } ?? 0
            return .start(saved)
        }
        switch step {
        case let .done(status):
            announce(item)
            return status
        case let .start(position):
            if let reader = try await progressiveReader(for: item) {
                return await start(item, input: .source(reader), at: position)
            }
            let path = try await localFile(for: item, onProgress: onProgress)
            return await start(item, input: .file(path), at: position)
        }
    }

    /// For an audio or video item not yet cached: a reader of its download,
    /// which starts (or joins) now, once the server has answered (a 404 is a
    /// download error, not a decoding one). Playback then begins as soon as
    /// the demuxer has what it needs. Nil for everything else (a picture is
    /// shown whole, so it downloads first).
    private func progressiveReader(for item: FeedItem) async throws(SessionError) -> CacheReader? {
        guard item.kind == .audio || item.kind == .video, case let .remote(url)? = item.source,
              let cache, cache.cachedFile(for: url) == nil else { return nil }
        do {
            return try await cache.openWhenAnswered(url)
        } catch {
            lock.withLock { failures[item.position] = "download failed: \(error)" }
            announce(item)
            throw SessionError(.downloadFailed, "\"\(item.title)\": download failed: \(error)")
        }
    }

    /// With `lock` held: pauses the active item if it is another one.
    private func pauseCurrent(except position: Int) {
        guard let active = current, active != position, let player = players[active] else { return }
        if player.mediaInfo?.isImage == true {
            player.stop()
            players[active] = nil
        } else {
            player.pause()
            if let item = currentFeed.items.first(where: { $0.position == active }) { savePosition(item, player) }
        }
    }

    /// Saves where `item` stands; an ended or failed player has nothing to
    /// resume (its saved position was removed when it ended).
    private func savePosition(_ item: FeedItem, _ player: Player) {
        guard let url = item.source?.description, !player.currentState.isFinal else { return }
        positions?.save(player.currentPosition, for: url)
    }

    /// Saves the positions of the playing and paused items (the daemon calls
    /// this every few seconds of play).
    public func savePositions() {
        lock.withLock {
            for (position, player) in players where [.playing, .paused, .buffering].contains(player.currentState) {
                if let item = currentFeed.items.first(where: { $0.position == position }) { savePosition(item, player) }
            }
        }
    }

    /// The file to play: a local path as is, a remote one through the cache.
    private func localFile(for item: FeedItem, onProgress: (@Sendable (ItemStatus) -> Void)?) async throws(SessionError) -> String {
        switch item.source {
        case let .file(path)?:
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw SessionError(.noSuchItem, "item \(item.position): no readable file at \(path)")
            }
            return path
        case let .remote(url)?:
            guard let cache else { throw SessionError(.downloadFailed, "item \(item.position) needs a download and no cache is open") }
            if let path = cache.cachedFile(for: url) { return path }
            lock.withLock {
                downloads[item.position] = .some(nil)
                failures[item.position] = nil
            }
            defer { lock.withLock { downloads[item.position] = nil } }
            for await event in cache.download(url) {
                switch event {
                case let .progress(progress):
                    lock.withLock { downloads[item.position] = .some(progress.fraction) }
                    announce(item)
                    onProgress?(status(of: item))
                case let .finished(path, _):
                    return path
                case let .failed(error):
                    lock.withLock { failures[item.position] = "download failed: \(error)" }
                    announce(item)
                    throw SessionError(.downloadFailed, "\"\(item.title)\": download failed: \(error)")
                }
            }
            throw SessionError(.downloadFailed, "\"\(item.title)\": download stopped")
        case nil:
            throw SessionError(.invalidItem, "item \(item.position) \"\(item.title)\" is text only: it has no media to play")
        }
    }

    /// Starts a player and returns once its file is open (so the status has
    /// the duration) or it failed.
    private func start(_ item: FeedItem, input: MediaInput, at position: Double) async -> ItemStatus {
        var options = PlaybackOptions()
        options.clock = outputs.clock
        options.start = item.kind == .image ? 0 : position
        let audio = item.kind == .image ? nil : outputs.makeAudioSink()
        let makeVideo = outputs.makeVideoSink
        let player = Player(input: input, audioSink: audio, options: options) { info, player in makeVideo(item, info, player) }
        let events = player.events()
        let opening = player.events()
        lock.withLock {
            pauseCurrent(except: item.position)
            players[item.position]?.stop()
            players[item.position] = player
            current = item.position
            failures[item.position] = nil
        }
        player.play()
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                if case let .state(state) = event {
                    // Played to the end: next time starts from the top. (A
                    // player that was stopped is no longer registered, and
                    // its saved position stays.)
                    let isRegistered = lock.withLock { resolvedLocked(item).map { players[$0.position] === player } ?? false }
                    if state == .ended, isRegistered, let url = item.source?.description {
                        if player.wasStopped {
                            // Its window was closed: a stop, so the next toggle
                            // resumes here (a picture has nothing to resume).
                            let position = player.currentPosition
                            if player.mediaInfo?.isImage != true, position > 0 { positions?.save(position, for: url) }
                        } else {
                            positions?.remove(for: url)
                        }
                    }
                    if case let .failed(message) = state {
                        lock.withLock { if let now = resolvedLocked(item) { failures[now.position] = message } }
                    }
                }
                announce(item)
            }
        }
        for await event in opening {
            if case .opened = event { break }
            if case let .state(state) = event, state.isFinal { break }
        }
        return status(of: item)
    }

    // MARK: - Control

    public func seek(_ item: FeedItem, to seconds: Double) throws(SessionError) {
        guard let player = lock.withLock({ players[item.position] }) else {
            throw SessionError(.badRequest, "item \(item.position) is not playing or paused")
        }
        player.seek(to: seconds)
        announce(item)
    }

    /// Stops playback of the active item (its position is saved); returns
    /// the item it stopped, if one was active.
    @discardableResult
    public func stop() async -> FeedItem? {
        let player: (Player, FeedItem)? = lock.withLock {
            guard let active = current, let player = players[active], let item = currentFeed.items.first(where: { $0.position == active }) else { return nil }
            savePosition(item, player)
            players[active] = nil
            current = nil
            return (player, item)
        }
        guard let (player, item) = player else { return nil }
        player.stop()
        // A stopped item's download stops too (paused ones go on): it would
        // take bandwidth, and a connection, from what plays next. The part
        // downloaded stays and resumes the next time.
        if case let .remote(url)? = item.source { cache?.cancel(url) }
        _ = await blocking { player.waitUntilFinished() }
        announce(item)
        return item
    }

    /// Stops every player and saves positions (daemon exit, end of a script).
    public func shutdown() async {
        savePositions()
        let all = lock.withLock {
            defer { players.removeAll(); current = nil }
            return Array(players.values)
        }
        for player in all { player.stop() }
        await blocking { for player in all { player.waitUntilFinished() } }
    }

    /// Virtual clock: lets `seconds` of media play on the active item (no
    /// time passes for a paused or idle session).
    public func advanceVirtualClock(by seconds: Double) async {
        guard let player = lock.withLock({ current.flatMap { players[$0] } }) else { return }
        await blocking { player.advanceVirtualClock(by: seconds) }
    }

    /// Whether the item's file is at hand (a local file, or in the cache).
    public func isCached(_ item: FeedItem) -> Bool {
        switch item.source {
        case let .file(path)?: return FileManager.default.fileExists(atPath: path)
        case let .remote(url)?: return cache?.cachedFile(for: url) != nil
        case nil: return false
        }
    }

    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            blockingQueue.async { continuation.resume(returning: body()) }
        }
    }
}
