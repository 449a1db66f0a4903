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
    /// Subscribers whose streams ended, to forget at the next use of
    /// `state`. A lock of their own: `onTermination` runs under the
    /// cancelled task's own lock, and `send` resumes tasks (taking theirs)
    /// while it holds `state`, so taking `state` there deadlocked the two.
    private let ended = Mutex<[Int]>([])
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
            self?.ended.withLock { $0.append(key) }
        }
        return stream
    }

    public func send(_ value: Element) {
        // Under the lock, so that values from concurrent senders keep one
        // order for every subscriber (yield never runs onTermination).
        state.withLock { state in
            forgetEnded(&state)
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

    public var subscriberCount: Int {
        state.withLock { state in
            forgetEnded(&state)
            return state.subscribers.count
        }
    }

    /// With `state` held: drops the subscribers whose streams ended.
    private func forgetEnded(_ state: inout State) {
        let keys = ended.withLock { keys in
            defer { keys.removeAll() }
            return keys
        }
        for key in keys { state.subscribers.removeValue(forKey: key) }
    }
}
