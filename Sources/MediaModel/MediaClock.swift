import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one clock of the daemon, the socket, MPRIS, the cache and scripts:
/// they read the time and wait only through the clock they were given, so
/// a test hands them a `ManualClock` and moves time itself. `SystemClock` is
/// the real one, and the only place that reads the operating system's time.
/// (The engine keeps its own virtual clock for media time.)
///
/// Times are seconds: `now` on a monotonic scale (its origin means nothing;
/// only differences and deadlines do), `wallTime` the date, for what is
/// stored or shown (a cache entry's last use, a request's expiry, a log line).
public protocol MediaClock: Sendable {
    /// Monotonic seconds: never goes back, unaffected by changes of the date.
    var now: Double { get }
    /// The date and time, for what is stored, compared across processes or shown.
    var wallTime: Date { get }
    /// Suspends the task until `now` reaches `deadline` (at once if it has).
    /// Cancellable: throws `CancellationError`. Never blocks a thread.
    func sleep(until deadline: Double) async throws
    /// For a thread of its own (never the cooperative pool) that waits on
    /// `condition`, which it holds locked: waits until signalled or until
    /// `now` reaches `deadline`, as `NSCondition.wait(until:)` does. Returns
    /// false once the deadline has passed; true may be a spurious wake-up,
    /// so the caller checks what it waits for in a loop.
    func wait(on condition: NSCondition, until deadline: Double) -> Bool
}

extension MediaClock {
    /// Suspends the task for `seconds` of this clock.
    public func sleep(for seconds: Double) async throws {
        try await sleep(until: now + seconds)
    }

    /// Runs `action` once `now` reaches `deadline`, unless cancelled first:
    /// a timer for threads that wait on something the clock cannot wake
    /// (a socket, libcurl's poll). `action` runs on the cooperative pool,
    /// so it must not block (wake a poll, shut a socket, signal).
    public func alarm(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ClockAlarm {
        ClockAlarm(Task.detached { [self] in
            do { try await sleep(until: deadline) } catch { return }
            // Cancelled as it woke: still not run. (A cancel racing the
            // action itself may come too late; callers tolerate one run.)
            guard !Task.isCancelled else { return }
            action()
        })
    }
}

/// A pending `alarm`: cancelled before it rings, its action never runs.
public struct ClockAlarm: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    public func cancel() {
        task.cancel()
    }
}

/// The real clock: CLOCK_MONOTONIC and the date. Stateless; every instance
/// is the same clock.
public struct SystemClock: MediaClock {
    /// What every type takes when it is not given a clock.
    public static let shared = SystemClock()

    public init() {}

    public var now: Double {
        Self.monotonicSeconds()
    }

    public var wallTime: Date {
        Date()
    }

    public func sleep(until deadline: Double) async throws {
        let delay = deadline - now
        guard delay > 0 else { return try Task.checkCancellation() }
        // Capped so that a far deadline cannot overflow a Duration.
        try await Task.sleep(for: .seconds(min(delay, Self.longestWait)))
    }

    public func wait(on condition: NSCondition, until deadline: Double) -> Bool {
        let delay = deadline - now
        guard delay > 0 else { return false }
        return condition.wait(until: Date(timeIntervalSinceNow: min(delay, Self.longestWait)))
    }

    /// The milliseconds until a deadline on CLOCK_MONOTONIC in microseconds,
    /// for poll(2) (rounded up, 0 once passed): sd-bus gives its own
    /// deadlines so, on the real clock whatever clock the caller was given.
    public static func pollTimeout(untilMonotonicMicroseconds deadline: UInt64) -> Int32 {
        let microseconds = UInt64(monotonicSeconds() * 1_000_000)
        return deadline > microseconds ? Int32(clamping: (deadline - microseconds + 999) / 1000) : 0
    }

    /// About 31 years: longer waits are waits for ever.
    private static let longestWait: Double = 1e9

    private static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// A clock for tests that moves only when told (`advance`): a sleeper wakes
/// exactly when the clock reaches its deadline, never by itself, and
/// nothing sleeps for real. Async sleepers, threads waiting on a condition
/// and alarms all count as sleepers (`waitForSleepers`).
public final class ManualClock: MediaClock, @unchecked Sendable {
    private enum Sleeper {
        case task(CheckedContinuation<Void, any Error>)
        /// A thread in `wait(on:until:)`: its condition is broadcast.
        case thread(NSCondition)
    }

    // Guarded by `lock`. Conditions are locked only with `lock` released:
    // a waiting thread holds its condition's lock while it takes `lock`.
    private let lock = NSLock()
    private var current: Double
    private let wallOrigin: Date
    private var sleepers: [Int: (deadline: Double, sleeper: Sleeper)] = [:]
    private var nextID = 0
    private var sleeperWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Starts at `now`; the date at that moment is `wallTime` (a fixed
    /// date by default: a manual clock reads nothing of the real one).
    public init(now: Double = 0, wallTime: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = now
        wallOrigin = wallTime.addingTimeInterval(-now)
    }

    public var now: Double {
        lock.withLock { current }
    }

    public var wallTime: Date {
        wallOrigin.addingTimeInterval(now)
    }

    /// How many sleepers wait for the clock now.
    public var sleeperCount: Int {
        lock.withLock { sleepers.count }
    }

    /// Moves the clock `seconds` on and wakes every sleeper whose deadline it
    /// reached. One jump: a timer that sleeps again from the new time fires
    /// once, as after a real jump; advance in steps to see it fire each time.
    public func advance(by seconds: Double) {
        precondition(seconds >= 0, "a manual clock never goes back")
        advance(to: now + seconds)
    }

    /// Moves the clock to `time` (never back) and wakes every sleeper whose
    /// deadline it reached.
    public func advance(to time: Double) {
        let due = lock.withLock { () -> [Sleeper] in
            precondition(time >= current, "a manual clock never goes back")
            current = time
            let reached = sleepers.filter { $0.value.deadline <= time }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in reached { sleepers.removeValue(forKey: id) }
            return reached.map(\.value.sleeper)
        }
        for sleeper in due {
            switch sleeper {
            case let .task(continuation):
                continuation.resume()
            case let .thread(condition):
                // Taken only once the thread waits in it: the wake-up cannot be lost.
                condition.lock()
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Returns once at least `count` sleepers wait for the clock: a test
    /// advances only after the timer it means to fire is set.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Bool in
                if sleepers.count >= count { return true }
                sleeperWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func sleep(until deadline: Double) async throws {
        let id = lock.withLock { () -> Int in
            defer { nextID += 1 }
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, wake, cancel }
                let (outcome, watchers) = lock.withLock { () -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    // A cancellation before this point found nothing to cancel.
                    if Task.isCancelled { return (.cancel, []) }
                    if deadline <= current { return (.wake, []) }
                    sleepers[id] = (deadline, .task(continuation))
                    return (.wait, arrivedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                switch outcome {
                case .wait: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let removed = lock.withLock { sleepers.removeValue(forKey: id) }
            if case let .task(continuation)? = removed?.sleeper { continuation.resume(throwing: CancellationError()) }
        }
    }

    public func wait(on condition: NSCondition, until deadline: Double) -> Bool {
        let registered = lock.withLock { () -> (id: Int, watchers: [CheckedContinuation<Void, Never>])? in
            guard deadline > current else { return nil }
            let id = nextID
            nextID += 1
            sleepers[id] = (deadline, .thread(condition))
            return (id, arrivedWatchers())
        }
        guard let registered else { return false }
        for watcher in registered.watchers { watcher.resume() }
        // The caller holds `condition` until it waits, so `advance` (which
        // locks it to broadcast) cannot signal before this thread listens.
        condition.wait()
        return lock.withLock {
            sleepers.removeValue(forKey: registered.id)
            return current < deadline
        }
    }

    /// The watchers whose count of sleepers is reached (taken out); `lock` held.
    private func arrivedWatchers() -> [CheckedContinuation<Void, Never>] {
        let count = sleepers.count
        let arrived = sleeperWatchers.filter { $0.count <= count }.map(\.continuation)
        sleeperWatchers.removeAll { $0.count <= count }
        return arrived
    }
}
