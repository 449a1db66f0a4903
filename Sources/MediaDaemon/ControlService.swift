import Foundation
import Synchronization
import MediaFeed
import MediaModel
import MediaControl
import MediaSession

/// The socket's front end to the command layer: decodes a request, resolves
/// its item against the feed as it is now, calls the session, encodes the
/// reply. It adds no playback logic of its own.
public final class ControlService: Sendable {
    public let session: MediaSession
    /// The feed the session plays, as clients name it.
    public let feed: String
    public let version: String
    /// Takes the feed file's changes in (the daemon's one `FeedFollowing`,
    /// which MPRIS shares): before an item is resolved, the session follows
    /// the file, so the number a client sends means what `list` shows now.
    private let followFeed: @Sendable () -> Void
    /// Why this player can show no pictures (nil: it can), as its owner
    /// knows it: the service reads no engine.
    private let displayProblem: @Sendable () -> String?
    /// An item's file's duration, tags and format: kept in the cache's
    /// index, probed once per file when not (blocking: run on the feed queue).
    private let details: @Sendable (FeedItem) -> MediaDetails?
    /// Local files' tags, probed without the cache (a file played alone is
    /// called by its title tag): its owner's probe, as the service reads no engine.
    private let probe: @Sendable ([FeedItem]) -> [MediaDetails?]
    /// Ends the daemon; returns once playback has stopped and positions
    /// are saved (the reply to `quit` means it).
    private let onQuit: @Sendable () async -> Void
    /// Feed reloads run here: they read a file, never on the cooperative pool.
    private let feedQueue = DispatchQueue(label: "mediaplay.feed")
    /// Requests' expiry, a waiting toggle's heartbeat and its patience.
    private let clock: any MediaClock

    public init(
        session: MediaSession, feed: String, version: String, clock: any MediaClock = SystemClock.shared,
        followFeed: @escaping @Sendable () -> Void = {}, displayProblem: @escaping @Sendable () -> String? = { nil }, details: @escaping @Sendable (FeedItem) -> MediaDetails? = { _ in nil },
        probe: @escaping @Sendable ([FeedItem]) -> [MediaDetails?] = { $0.map { _ in nil } },
        onQuit: @escaping @Sendable () async -> Void
    ) {
        self.clock = clock
        self.details = details
        self.probe = probe
        self.session = session
        self.feed = feed
        self.version = version
        self.followFeed = followFeed
        self.displayProblem = displayProblem
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
            throw CommandError(.wrongFeed, "the background player plays the feed \(feed), not \(wanted) (--replace switches it to that feed; without --feed, numbers are those of its own)")
        }
        let id = request.id
        // A client that gave up (the daemon was stopped, or busy) must not
        // see its request carried out later, behind its back.
        if let expires = request.expires, expires < ClientTimeout.expiry(after: 0, clock: clock) {
            throw CommandError(.badRequest, "the request expired before the background player read it (its client had given up); nothing was done")
        }
        // Every reply speaks of the feed as it is now (numbers included).
        // This thread may wait for the feed file; the pool never does.
        if command != .quit { followFeed() }
        let session = session
        var request = request
        if command == .toggle, request.item == nil, let source = request.source {
            let media = try Self.mediaSource(source)
            // A file is called by its title tag, as in a folder (one file's
            // probe, on this thread).
            var alone = Feed.single(media)
            if case .file = media { alone.takeTitles(from: probe(alone.items)) }
            request.item = .id(session.oneOffItem(media, title: alone.items[0].title).id)
        }
        if let commands = try request.playerCommands() {
            return try control(command, commands, request, on: connection)
        }
        switch command {
        case .status:
            if request.item != nil {
                return .now(ControlJSON.line(ControlReply.success(id, session.status(of: try item(request)))))
            }
            return .now(ControlJSON.line(ControlReply.success(id, daemonStatus())))
        case .observe:
            connection.markObserving()
            // Subscribed before the status is read, so nothing falls between
            // them; forwarded once the status is written, so it comes first.
            let events = session.events()
            let settings = session.settingsEvents()
            let reply = ControlJSON.line(ControlReply.success(id, daemonStatus()))
            connection.whenReplied {
                let forward = Task {
                    for await event in events { connection.send(ControlJSON.line(event)) }
                }
                let forwardSettings = Task {
                    for await event in settings { connection.send(ControlJSON.line(event)) }
                }
                connection.whenFinished {
                    forward.cancel()
                    forwardSettings.cancel()
                }
            }
            return .now(reply)
        case .quit:
            let onQuit = onQuit
            return later(id) {
                await onQuit()
                return ControlJSON.line(ControlReply.success(id, EmptyResult()))
            }
        default:
            throw CommandError(.badRequest, "\(request.cmd) is not a request this daemon reads")
        }
    }

    /// `toggle`'s `source`: an absolute path to a readable file, or an
    /// http(s) URL (the client is this user, on a private socket).
    static func mediaSource(_ text: String) throws(CommandError) -> MediaSource {
        if let scheme = FeedDecoder.schemeOf(text), scheme == "http" || scheme == "https" {
            guard FeedDecoder.hasAuthority(text), let url = URL(string: text) else { throw CommandError(.badRequest, "\"\(text)\" is not a usable \(scheme) URL") }
            return .remote(url)
        }
        guard text.hasPrefix("/") else { throw CommandError(.badRequest, "\"source\" is an absolute path or an http(s) URL, not \"\(text)\"") }
        guard LocalFile.isReadable(text) else { throw CommandError(.noSuchItem, "no readable file at \(text)") }
        return .file((text as NSString).standardizingPath)
    }

    /// A control: its commands through the session's one entry point. What
    /// waits for nothing (a pause, a seek, the volume) is done and answered
    /// on the client's thread; a start, a stop or a step runs as a task.
    private func control(
        _ kind: ControlRequest.Command, _ commands: [PlayerCommand], _ request: ControlRequest, on connection: ControlConnection
    ) throws(CommandError) -> ControlAnswer {
        let id = request.id
        let session = session
        if kind == .toggle, request.wait == false, let selector = request.item {
            let item = try session.item(selector)
            return later(id) { [self] () throws(CommandError) in ControlJSON.line(ControlReply.success(id, try await toggleWithoutWaiting(item))) }
        }
        var outcome: PlayerOutcome?
        var waiting: ArraySlice<PlayerCommand> = []
        for (index, command) in commands.enumerated() {
            guard let done = try session.performAtOnce(command) else {
                waiting = commands[index...]
                break
            }
            outcome = done
        }
        if waiting.isEmpty { return .now(reply(kind, outcome, id)) }
        let watched = try request.item.map { selector throws(CommandError) in try session.item(selector).key }
        let beat = Self.heartbeat(until: request.expires, clock: clock)
        let clock = clock
        let (doneSoFar, rest) = (outcome, Array(waiting))
        return later(id) { [self] () throws(CommandError) in
            // While a start waits (a server slow to answer), the client
            // hears the item's state now and then, so it knows the player
            // is alive and does not give up on it.
            let heartbeat = Task {
                while !Task.isCancelled, let watched {
                    try? await clock.sleep(for: beat)
                    guard !Task.isCancelled else { return }
                    if let status = session.status(of: watched) { connection.send(ControlJSON.line(ItemEvent(.progress, status))) }
                }
            }
            defer { heartbeat.cancel() }
            // The first was found to wait; any after it go the whole way.
            var last = doneSoFar
            for (index, command) in rest.enumerated() {
                let progress: @Sendable (ItemStatus) -> Void = { connection.send(ControlJSON.line(ItemEvent(.progress, $0))) }
                last = index == 0
                    ? try await session.performWaiting(command, onProgress: progress)
                    : try await session.perform(command, onProgress: progress)
            }
            return reply(kind, last, id)
        }
    }

    /// The reply to a control: what its last command did, in the shape that
    /// command's definition names; a request that only asks (a bare
    /// `volume` or `playlist`) gets the settings it asked for.
    private func reply(_ kind: ControlRequest.Command, _ outcome: PlayerOutcome?, _ id: Int?) -> [UInt8] {
        if let outcome { return outcome.replyLine(id) }
        switch kind {
        case .volume, .mute, .speed: return PlayerOutcome.audio(session.audioSettings).replyLine(id)
        case .playlist: return PlayerOutcome.playlist(session.playlistMode).replyLine(id)
        default: return PlayerOutcome.item(nil).replyLine(id)
        }
    }

    /// Seconds between a waiting toggle's signs of life: a third of what
    /// its client waits (2 s at most, 0.2 s at least).
    static func heartbeat(until expires: Int64?, clock: any MediaClock) -> Double {
        guard let expires else { return 2 }
        let left = Double(expires - ClientTimeout.expiry(after: 0, clock: clock)) / 1000
        return min(max(left / 3, 0.2), 2)
    }

    /// `toggle` with `wait: false`: the reply comes as soon as the item plays,
    /// pauses or fails, or its download has started (then it goes on without
    /// the client): the real state, and the real error.
    private func toggleWithoutWaiting(_ item: FeedItem) async throws(CommandError) -> ItemStatus {
        let session = session
        let clock = clock
        let key = item.key
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
                try? await clock.sleep(for: 0.5)
                guard !Task.isCancelled, let status = session.status(of: key) else { return }
                answer.resume(.success(status))
            }
            Task {
                do throws(CommandError) {
                    let outcome = try await session.perform(.toggle(.id(item.id)))
                    answer.resume(.success(outcome.item ?? session.status(of: item)))
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


    /// The current item's details are looked up on the feed queue first;
    /// the session's state is read after, all at one moment.
    private func daemonStatus() -> DaemonStatus {
        let item = session.currentStatus().flatMap { session.item(for: $0.id) }
        let media = item.flatMap { item in feedQueue.sync { details(item) } }
        let current = session.currentStatus()
        var status = DaemonStatus(
            current: current, items: session.activeStatuses(), feed: feed, pid: getpid(), version: version,
            audio: session.audioSettings, playlist: session.playlistMode, display: displayProblem().map { "no display (\($0))" },
            media: current?.id == item.map(\.key) ? media : nil
        )
        let sleep = session.sleepStatus
        status.sleep = sleep.isOff ? nil : sleep
        return status
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
