import Synchronization

/// Sends each value to every current subscriber, each through an
/// AsyncStream of its own: the one subscriber list of the player, the
/// session and the cache's downloads. A subscriber that stops listening is
/// forgotten; after `finish()`, a new subscriber gets its replayed values
/// and an ended stream.
public final class Broadcaster<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var next = 0
        var finished = false
    }

    private let state = Mutex(State())
    private let buffering: AsyncStream<Element>.Continuation.BufferingPolicy

    /// `buffering` applies per subscriber: unbounded (nothing is dropped, for
    /// state changes) or the newest N (for a slow reader of frequent values).
    public init(buffering: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded) {
        self.buffering = buffering
    }

    /// Values from now on, after `initial` (what a late subscriber must know).
    public func subscribe(replaying initial: [Element] = []) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: buffering)
        for value in initial { continuation.yield(value) }
        let key: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            let key = state.next
            state.next += 1
            state.subscribers[key] = continuation
            return key
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    public func send(_ value: Element) {
        // Under the lock, so that values from concurrent senders keep one
        // order for every subscriber (yield never runs onTermination).
        state.withLock { state in
            for continuation in state.subscribers.values { continuation.yield(value) }
        }
    }

    /// Ends every stream; later subscribers get theirs ended at once.
    public func finish() {
        let ending = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        // Outside the lock: finishing runs onTermination, which takes it.
        for continuation in ending { continuation.finish() }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
