import MediaModel

/// The items whose start (a download, opening the file) is under way, those
/// of them a stop has cancelled, and the toggles that came while one ran:
/// they report the state that start reaches (twenty cold toggles at once
/// all said "stopped" but the first). A value the session holds under its
/// lock; the waiters it hands back are resumed after the lock is let go.
struct StartsUnderWay: Sendable {
    private var starting: Set<ItemKey> = []
    private var cancelled: Set<ItemKey> = []
    private var waiters: [ItemKey: Waiters] = [:]

    func contains(_ key: ItemKey) -> Bool { starting.contains(key) }

    /// A start begins (a stop of an earlier one is forgotten).
    mutating func begin(_ key: ItemKey) {
        starting.insert(key)
        cancelled.remove(key)
    }

    /// A stop came: the start under way ends without playing. False when
    /// none runs.
    @discardableResult
    mutating func cancel(_ key: ItemKey) -> Bool {
        guard starting.contains(key) else { return false }
        cancelled.insert(key)
        return true
    }

    /// The start is over (it failed, or its player is made): whether a stop
    /// cancelled it. Only the first call after a cancel says so.
    mutating func end(_ key: ItemKey) -> Bool {
        starting.remove(key)
        return cancelled.remove(key) != nil
    }

    /// A toggle joins the start under way, to hear its outcome; false when
    /// none runs (the toggle answers at once).
    mutating func join(_ key: ItemKey, _ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard starting.contains(key) else { return false }
        waiters[key, default: Waiters()].add(continuation)
        return true
    }

    /// However the start ended: the toggles that joined it, to resume.
    mutating func finished(_ key: ItemKey) -> Waiters {
        waiters.removeValue(forKey: key) ?? Waiters()
    }
}

/// Tasks parked until something the session keeps under its lock happens
/// (a start ends, its background work drains). Taken out under the lock,
/// resumed after it: a resumed task may come straight back for the lock.
struct Waiters: Sendable {
    private var continuations: [CheckedContinuation<Void, Never>] = []

    var count: Int { continuations.count }

    mutating func add(_ continuation: CheckedContinuation<Void, Never>) {
        continuations.append(continuation)
    }

    /// Every waiter, leaving none here.
    mutating func take() -> Waiters {
        defer { continuations.removeAll() }
        return self
    }

    func resume() {
        for continuation in continuations { continuation.resume() }
    }
}
