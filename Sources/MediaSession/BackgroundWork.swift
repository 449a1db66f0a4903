/// Counts the work the session starts by itself (autoplay's next item, a
/// window's key), so that `settle()` can wait until it has all finished: a
/// test's deterministic drain ("nothing more starts") instead of sleeping
/// and hoping. A value the session holds under its lock.
struct BackgroundWork: Sendable {
    private(set) var running = 0
    private var settling = Waiters()

    var isIdle: Bool { running == 0 }

    /// A piece of work begins.
    mutating func begin() {
        running += 1
    }

    /// A piece of work is done: when it was the last, those settling, to resume.
    mutating func end() -> Waiters {
        running -= 1
        return running == 0 ? settling.take() : Waiters()
    }

    /// A `settle` waits for the work running now; false when there is none
    /// (it returns at once).
    mutating func settle(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard running > 0 else { return false }
        settling.add(continuation)
        return true
    }
}
