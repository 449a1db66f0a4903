import Foundation
import Synchronization
import MediaFeed
import MediaModel
import MediaControl
import MediaSession
import MediaEngine

/// The socket's front end to the command layer: decodes a request, resolves
/// its item against the feed as it is now, calls the session, encodes the
/// reply. It adds no playback logic of its own.
public final class ControlService: Sendable {
    public let session: MediaSession
    /// The feed the session plays, as clients name it.
    public let feed: String
    public let version: String
    private let reloadFeed: @Sendable () -> Feed?
    /// An item's file's duration, tags and format: kept in the cache's
    /// index, probed once per file when not (blocking: run on the feed queue).
    private let details: @Sendable (FeedItem) -> MediaDetails?
    /// Ends the daemon; returns once playback has stopped and positions
    /// are saved (the reply to `quit` means it).
    private let onQuit: @Sendable () async -> Void
    /// Feed reloads run here: they read a file, never on the cooperative pool.
    private let feedQueue = DispatchQueue(label: "mediaplay.feed")

    /// `reloadFeed` returns the feed when it changed since it was last
    /// read (nil otherwise): before an item is resolved, the session follows
    /// it, so the number a client sends means what `list` shows now.
    public init(
        session: MediaSession, feed: String, version: String,
        reloadFeed: @escaping @Sendable () -> Feed? = { nil }, details: @escaping @Sendable (FeedItem) -> MediaDetails? = { _ in nil },
        onQuit: @escaping @Sendable () async -> Void
    ) {
        self.details = details
        self.session = session
        self.feed = feed
        self.version = version
        self.reloadFeed = reloadFeed
        self.onQuit = onQuit
    }

    /// The reply to one request line, on the client's own thread: at once
    /// when the request waits for nothing (a pause or resume, a seek, the
    /// volume, status...), else the async work that makes it (a start, a
    /// stop, next and previous), which the server runs as a task.
    public func answer(_ piece: LineSplitter.Piece, on connection: ControlConnection) -> ControlAnswer {
        guard case let .line(bytes) = piece else {
            return .now(ControlJSON.line(ControlReply<EmptyResult>.failure(nil, CommandError(.lineTooLong, "request longer than \(maximumRequestLength) bytes"))))
        }
        let request: ControlRequest
        switch ControlRequest.decode(line: bytes) {
        case let .success(decoded):
            request = decoded
        case let .failure(bad):
            return .now(ControlJSON.line(ControlReply<EmptyResult>.failure(bad.id, CommandError(.badRequest, bad.message))))
        }
        do {
            return try perform(request, on: connection)
        } catch {
            return .now(ControlJSON.line(ControlReply<EmptyResult>.failure(request.id, error)))
        }
    }

    /// Work that waits (a start, a stop, next), its error made its reply.
    private func later(_ id: Int?, _ work: @escaping @Sendable () async throws(CommandError) -> [UInt8]) -> ControlAnswer {
        .later {
            do throws(CommandError) {
                return try await work()
            } catch {
                return ControlJSON.line(ControlReply<EmptyResult>.failure(id, error))
            }
        }
    }

    private func perform(_ request: ControlRequest, on connection: ControlConnection) throws(CommandError) -> ControlAnswer {
        guard let command = ControlRequest.Command(rawValue: request.cmd) else {
            let known = ControlRequest.Command.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandError(.unknownCommand, "unknown command \"\(request.cmd)\" (known: \(known))")
        }
        if let wanted = request.feed, wanted != feed {
            throw CommandError(.wrongFeed, "the background player plays the feed \(feed), not \(wanted) (run 'mediaplay quit' first to switch feeds)")
        }
        let id = request.id
        // A client that gave up (the daemon was stopped, or busy) must not
        // see its request carried out later, behind its back.
        if let expires = request.expires, expires < ClientTimeout.expiry(after: 0) {
            throw CommandError(.badRequest, "the request expired before the background player read it (its client had given up); nothing was done")
        }
        // Every reply speaks of the feed as it is now (numbers included).
        // This thread may wait for the feed file; the pool never does.
        if command != .quit { feedQueue.sync { followFeedNow() } }
        let session = session
        switch command {
        case .toggle:
            let key = try item(request).key
            if request.wait == false {
                return later(id) { [self] () throws(CommandError) in ControlJSON.line(ControlReply.success(id, try await toggleWithoutWaiting(key))) }
            }
            // A pause or resume is done here; a start waits for the player.
            if let status = try session.toggleAtOnce(key) { return .now(ControlJSON.line(ControlReply.success(id, status))) }
            let beat = Self.heartbeat(until: request.expires)
            return later(id) { () throws(CommandError) in
                // While the start waits (a server slow to answer), the
                // client hears the item's state now and then, so it knows
                // the player is alive and does not give up on it.
                let heartbeat = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(beat))
                        guard !Task.isCancelled else { return }
                        if let status = session.status(of: key) { connection.send(ControlJSON.line(ItemEvent(.progress, status))) }
                    }
                }
                defer { heartbeat.cancel() }
                let status = try await session.toggle(key) { progress in
                    connection.send(ControlJSON.line(ItemEvent(.progress, progress)))
                }
                return ControlJSON.line(ControlReply.success(id, status))
            }
        case .status:
            if request.item != nil {
                return .now(ControlJSON.line(ControlReply.success(id, session.status(of: try item(request)))))
            }
            return .now(ControlJSON.line(ControlReply.success(id, daemonStatus())))
        case .seek:
            // The item named, else the current one.
            let item: FeedItem
            if request.item != nil {
                item = try self.item(request)
            } else if let current = session.currentStatus(), let found = session.item(for: current.id) {
                item = found
            } else {
                throw CommandError(.badRequest, "nothing is playing or paused to seek in (name an item with \"item\")")
            }
            switch (request.seconds, request.by) {
            case let (seconds?, nil) where seconds.isFinite && seconds >= 0: try session.seek(item.key, to: seconds)
            case let (nil, offset?) where offset.isFinite: try session.seek(item.key, by: offset)
            default: throw CommandError(.badRequest, "seek needs \"seconds\" (a time, 0 or more) or \"by\" (seconds to move), a number")
            }
            return .now(ControlJSON.line(ControlReply.success(id, session.status(of: item))))
        case .stop:
            return later(id) { ControlJSON.line(ControlReply.success(id, StopResult(stopped: await session.stop()))) }
        case .volume:
            let shaping: AudioSettings
            switch (request.level, request.step) {
            case let (level?, nil) where AudioSettings.range.contains(level): shaping = session.setVolume(level)
            case let (nil, step?) where (-AudioSettings.range.upperBound...AudioSettings.range.upperBound).contains(step):
                shaping = session.changeVolume(by: step)
            case (nil, nil): shaping = session.audioShaping
            case (_?, _?): throw CommandError(.badRequest, "volume takes \"level\" or \"step\", not both")
            case (_?, nil): throw CommandError(.badRequest, "volume \"level\" must be from 0 to 150")
            case (nil, _?): throw CommandError(.badRequest, "volume \"step\" must be a change from −150 to 150")
            }
            return .now(ControlJSON.line(ControlReply.success(id, shaping)))
        case .mute:
            return .now(ControlJSON.line(ControlReply.success(id, session.setMuted(request.on))))
        case .speed:
            guard let value = request.value else { return .now(ControlJSON.line(ControlReply.success(id, session.audioShaping))) }
            guard AudioSettings.speeds.contains(value) else { throw CommandError(.badRequest, "speed takes \"value\", a factor from 0.25 to 4") }
            return .now(ControlJSON.line(ControlReply.success(id, session.setSpeed(value))))
        case .next:
            return later(id) { () throws(CommandError) in ControlJSON.line(ControlReply.success(id, try await session.next())) }
        case .prev:
            return later(id) { () throws(CommandError) in ControlJSON.line(ControlReply.success(id, try await session.previous())) }
        case .playlist:
            let mode = session.setPlaylist(autoplay: request.autoplay, repeat: request.repeat, shuffle: request.shuffle)
            return .now(ControlJSON.line(ControlReply.success(id, mode)))
        case .observe:
            connection.markObserving()
            let events = session.events()
            let forward = Task {
                for await event in events { connection.send(ControlJSON.line(event)) }
            }
            connection.whenFinished { forward.cancel() }
            return .now(ControlJSON.line(ControlReply.success(id, daemonStatus())))
        case .quit:
            let onQuit = onQuit
            return later(id) {
                await onQuit()
                return ControlJSON.line(ControlReply.success(id, EmptyResult()))
            }
        }
    }

    /// Seconds between a waiting toggle's signs of life: a third of what
    /// its client waits (2 s at most, 0.2 s at least).
    static func heartbeat(until expires: Int64?) -> Double {
        guard let expires else { return 2 }
        let left = Double(expires - ClientTimeout.expiry(after: 0)) / 1000
        return min(max(left / 3, 0.2), 2)
    }

    /// `toggle` with `wait: false`: the reply comes as soon as the item plays,
    /// pauses or fails, or its download has started (then it goes on without
    /// the client): the real state, and the real error.
    private func toggleWithoutWaiting(_ key: ItemKey) async throws(CommandError) -> ItemStatus {
        let session = session
        let events = session.events()
        // Whichever comes first answers; the toggle goes on either way (a
        // task group would wait for the download to end).
        let outcome: Result<ItemStatus, CommandError> = await withCheckedContinuation { continuation in
            let answer = Once(continuation)
            let watching = Task {
                for await event in events where event.status.id == key && event.status.state == .downloading {
                    answer.resume(.success(event.status))
                    return
                }
            }
            // Nor does the client wait on a server that accepts and never
            // answers: after half a second it hears the state as it stands
            // (buffering while nothing is decoded yet).
            let patience = Task {
                try? await Task.sleep(for: .milliseconds(500))
                guard !Task.isCancelled, let status = session.status(of: key) else { return }
                answer.resume(.success(status))
            }
            Task {
                do throws(CommandError) {
                    answer.resume(.success(try await session.toggle(key)))
                } catch {
                    answer.resume(.failure(error))
                }
                watching.cancel()
                patience.cancel()
            }
        }
        return try outcome.get()
    }

    private func item(_ request: ControlRequest) throws(CommandError) -> FeedItem {
        guard let selector = request.item else {
            throw CommandError(.badRequest, "\(request.cmd) needs \"item\": a number from 'mediaplay list' or an id")
        }
        return try session.item(selector)
    }

    /// Takes the feed file's changes in (reordered, added, removed items),
    /// on the feed queue, where the session follows them too: a request that
    /// finds the file unchanged also finds the session up to date.
    private func followFeedNow() {
        if let changed = reloadFeed() { session.update(feed: changed) }
    }

    /// The current item's details are looked up on the feed queue first;
    /// the session's state is read after, all at one moment.
    private func daemonStatus() -> DaemonStatus {
        let item = session.currentStatus().flatMap { session.item(for: $0.id) }
        let media = item.flatMap { item in feedQueue.sync { details(item) } }
        let current = session.currentStatus()
        return DaemonStatus(
            current: current, items: session.activeStatuses(), feed: feed, pid: getpid(), version: version,
            audio: session.audioShaping, playlist: session.playlistMode, display: SDLVideoSink.displayProblem.map { "no display (\($0))" },
            media: current?.id == item.map(\.key) ? media : nil
        )
    }
}

/// A continuation resumed by the first of several callers.
private final class Once<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }?.resume(returning: value)
    }
}
