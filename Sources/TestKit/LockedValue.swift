import Foundation

/// A value behind a pthread mutex (NSLock), for the state the loopback
/// server's threads share. Not Synchronization's Mutex: on Linux its
/// contended path takes the lock inside the kernel (a PI futex), where
/// ThreadSanitizer cannot see it, so `make sanitize-thread` reported races
/// whenever connection threads met at the lock. TSan understands pthread
/// mutexes.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
