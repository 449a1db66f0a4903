import Foundation

/// A value behind a pthread mutex (an NSCondition's), for the state the
/// loopback server's threads share; a change wakes whoever waits for one
/// (`wait(until:)`: a test waiting for bytes to be sent). Not
/// Synchronization's Mutex: on Linux its contended path takes the lock
/// inside the kernel (a PI futex), where ThreadSanitizer cannot see it, so
/// `make sanitize-thread` reported races whenever connection threads met at
/// the lock. TSan understands pthread mutexes.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Blocks until `satisfied` holds, looking again at each change; false
    /// when `timeout` seconds pass first (a bound for a failing test, never
    /// a pace). Run it off Swift's cooperative pool.
    func wait(until satisfied: (Value) -> Bool, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !satisfied(value) {
            if !condition.wait(until: deadline) { return satisfied(value) }
        }
        return true
    }
}
