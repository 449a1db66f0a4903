import Foundation
import MediaControl
import MediaFeed
import MediaModel
import MediaSession

/// What plays the items `browse` shows: a session in this process, or the
/// background player when one runs (so `toggle` and `browse` agree).
public protocol BrowsePlayback: Sendable {
    /// Where playback happens, as the help says it.
    var name: String { get }
    /// The items' statuses: every one that is not idle, and idle ones with
    /// where they would resume where the backend knows it.
    func statuses() async -> [ItemStatus]
    /// Plays, pauses or resumes `item`; returns once it started, paused or
    /// failed (a download is reported through `events` meanwhile).
    func toggle(_ item: FeedItem) async throws -> ItemStatus
    /// Status changes as they happen.
    func events() -> AsyncStream<ItemEvent>
    /// Carries out a control (a key's command): the session's one entry
    /// point, here or in the background player, the same value either way.
    func perform(_ command: PlayerCommand) async throws -> PlayerOutcome
    /// The feed was re-read: follow it. Returns what had to stop.
    func update(feed: Feed) async -> [FeedItem]
    /// `browse` ends.
    func shutdown() async
    /// Why a playing video's pictures are not in its cell, in one line
    /// (the background player's window, or its lack of a display); nil
    /// when they are (playback in this process draws there).
    func pictureNotice() async -> String?
}

/// Playback in this process: it ends when `browse` does.
public final class SessionBackend: BrowsePlayback {
    public let session: MediaSession
    public var name: String { "in this process (it stops when you quit)" }

    public func pictureNotice() async -> String? { nil }

    public init(session: MediaSession) {
        self.session = session
    }

    public func statuses() async -> [ItemStatus] {
        session.feed.items.map(session.status(of:)).filter { $0.state != .idle || $0.position > 0 }
    }

    public func toggle(_ item: FeedItem) async throws -> ItemStatus {
        try await session.perform(.toggle(.id(item.id))).item ?? session.status(of: item)
    }
    public func events() -> AsyncStream<ItemEvent> { session.events() }

    public func perform(_ command: PlayerCommand) async throws -> PlayerOutcome {
        try await session.perform(command)
    }

    public func update(feed: Feed) async -> [FeedItem] { session.update(feed: feed) }
    public func shutdown() async { await session.shutdown() }
}

/// Playback in the background player: it goes on after `browse` ends. The
/// client's calls block, so each runs on a thread of its own; events come
/// on a second connection that observes.
public final class DaemonBackend: BrowsePlayback {
    private let requests: ControlClient
    private let observer: ControlClient
    private let feedIdentity: String
    /// One call at a time on the request connection (replies come in order).
    private let queue = DispatchQueue(label: "mediaplay.browse.daemon")
    public var name: String { "in the background player (it goes on after you quit)" }

    /// The reason `toggle` gives, shorter: where the pictures are, or why none show.
    public func pictureNotice() async -> String? {
        let display = try? await call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self).display
        return display.map { "sound only: \($0)" } ?? "pictures in the player's window"
    }

    /// Nil when no background player answers.
    public static func connect(_ paths: ControlPaths, feed: String) -> DaemonBackend? {
        guard let requests = try? ControlClient.connect(paths), let observer = try? ControlClient.connect(paths),
              let status = try? requests.call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self),
              status.feed == feed
        else { return nil }
        return DaemonBackend(requests: requests, observer: observer, feed: feed)
    }

    private init(requests: ControlClient, observer: ControlClient, feed: String) {
        self.requests = requests
        self.observer = observer
        feedIdentity = feed
    }

    private func call<Result: Decodable & Sendable>(_ request: ControlRequest, as type: Result.Type) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                do {
                    let result = try requests.call(request, as: type)
                    continuation.resume(returning: result)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    public func statuses() async -> [ItemStatus] {
        (try? await call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self).items) ?? []
    }

    public func toggle(_ item: FeedItem) async throws -> ItemStatus {
        // By id: the item on screen, whatever its number in the player's
        // feed. No waiting for a download: progress comes as events.
        try await call(ControlRequest(id: nil, cmd: .toggle, item: .id(item.id), wait: false, feed: feedIdentity), as: ItemStatus.self)
    }

    /// The command as one request; its reply read in the shape the
    /// command's definition names.
    public func perform(_ command: PlayerCommand) async throws -> PlayerOutcome {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                do {
                    continuation.resume(returning: try requests.perform(command))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    public func events() -> AsyncStream<ItemEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ItemEvent.self, bufferingPolicy: .bufferingNewest(256))
        let observer = observer
        let thread = Thread {
            do {
                _ = try observer.call(ControlRequest(id: nil, cmd: .observe), as: DaemonStatus.self)
                while true { continuation.yield(try observer.nextEvent()) }
            } catch {
                continuation.finish()
            }
        }
        thread.name = "mediaplay.browse.observe"
        thread.start()
        return stream
    }

    /// The background player follows the feed file by itself, on its next
    /// request; items it dropped come as state events.
    public func update(feed: Feed) async -> [FeedItem] { [] }

    public func shutdown() async {}
}
