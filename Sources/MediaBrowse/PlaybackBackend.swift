import Foundation
import MediaControl
import MediaFeed
import MediaModel
import MediaSession

/// What plays the items `browse` shows: a session in this process, or the
/// background player when one runs (so `toggle` and `browse` agree).
public protocol PlaybackBackend: Sendable {
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
    /// Moves the volume by `step` points (nil: toggles mute); the setting now.
    func changeAudio(volumeStep step: Int?) async throws -> AudioSettings
    /// Plays the playlist's next (or previous) item.
    func step(forward: Bool) async throws -> ItemStatus
    /// Multiplies the speed by `factor` (nil: back to 1×); the settings now.
    func changeSpeed(by factor: Double?) async throws -> AudioSettings
    /// Moves the current item `seconds` on (back when negative); its status.
    func seek(by seconds: Double) async throws -> ItemStatus
    /// The feed was re-read: follow it. Returns what had to stop.
    func update(feed: Feed) async -> [FeedItem]
    /// `browse` ends.
    func shutdown() async
}

/// Playback in this process: it ends when `browse` does.
public final class SessionBackend: PlaybackBackend {
    public let session: MediaSession
    public var name: String { "in this process (it stops when you quit)" }

    public init(session: MediaSession) {
        self.session = session
    }

    public func statuses() async -> [ItemStatus] {
        session.feed.items.map(session.status(of:)).filter { $0.state != .idle || $0.position > 0 }
    }

    public func toggle(_ item: FeedItem) async throws -> ItemStatus { try await session.toggle(item.key) }
    public func events() -> AsyncStream<ItemEvent> { session.events() }

    public func changeAudio(volumeStep step: Int?) async throws -> AudioSettings {
        if let step { return session.changeVolume(by: step) }
        return session.setMuted(nil)
    }

    public func step(forward: Bool) async throws -> ItemStatus {
        forward ? try await session.next() : try await session.previous()
    }

    public func changeSpeed(by factor: Double?) async throws -> AudioSettings {
        factor.map { session.changeSpeed(by: $0) } ?? session.setSpeed(1)
    }

    public func seek(by seconds: Double) async throws -> ItemStatus {
        guard let current = session.currentStatus() else { throw CommandError(.badRequest, "nothing is playing or paused to seek in") }
        try session.seek(current.id, by: seconds)
        return session.status(of: current.id) ?? current
    }
    public func update(feed: Feed) async -> [FeedItem] { session.update(feed: feed) }
    public func shutdown() async { await session.shutdown() }
}

/// Playback in the background player: it goes on after `browse` ends. The
/// client's calls block, so each runs on a thread of its own; events come
/// on a second connection that observes.
public final class DaemonBackend: PlaybackBackend {
    private let requests: ControlClient
    private let observer: ControlClient
    private let feedIdentity: String
    /// One call at a time on the request connection (replies come in order).
    private let queue = DispatchQueue(label: "mediaplay.browse.daemon")
    public var name: String { "in the background player (it goes on after you quit)" }

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

    public func step(forward: Bool) async throws -> ItemStatus {
        try await call(ControlRequest(id: nil, cmd: forward ? .next : .prev), as: ItemStatus.self)
    }

    public func changeSpeed(by factor: Double?) async throws -> AudioSettings {
        guard let factor else { return try await call(ControlRequest(id: nil, cmd: .speed, value: 1), as: AudioSettings.self) }
        let now = try await call(ControlRequest(id: nil, cmd: .speed), as: AudioSettings.self)
        return try await call(ControlRequest(id: nil, cmd: .speed, value: min(max(((now.speed * factor) * 100).rounded() / 100, 0.25), 4)), as: AudioSettings.self)
    }

    public func seek(by seconds: Double) async throws -> ItemStatus {
        try await call(ControlRequest(id: nil, cmd: .seek, by: seconds), as: ItemStatus.self)
    }

    public func changeAudio(volumeStep step: Int?) async throws -> AudioSettings {
        let request = step.map { ControlRequest(id: nil, cmd: .volume, step: $0) } ?? ControlRequest(id: nil, cmd: .mute)
        return try await call(request, as: AudioSettings.self)
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
