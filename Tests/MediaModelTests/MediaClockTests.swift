import Foundation
import MediaModel
import Synchronization
import Testing

/// Runs `body` on a thread of its own (a blocking wait never takes a
/// thread of the cooperative pool) and returns what it returned.
private func onThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A value shared with sleepers (a Mutex itself cannot be captured).
private final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { value.withLock { body(&$0) } }
}

/// The test clock: time moves only when a test moves it, and every kind of
/// sleeper wakes exactly when it reaches the sleeper's deadline.
@Suite(.timeLimit(.minutes(1))) struct ManualClockTests {
    @Test func aSleeperWakesWhenTheClockReachesItsDeadlineNotBefore() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: 10) }
        await clock.waitForSleepers(1)
        clock.advance(by: 9.999)
        #expect(clock.sleeperCount == 1, "0.001 s early: still asleep")
        clock.advance(by: 0.001)
        #expect(clock.sleeperCount == 0, "woken as the clock reached 10")
        try await sleeper.value
        #expect(clock.now == 10)
    }

    @Test func eachSleeperWakesAtItsOwnDeadline() async throws {
        let clock = ManualClock(now: 100)
        let woken = Shared<[Double]>([])
        let sleepers = (1...3).map { index in
            Task {
                try await clock.sleep(for: Double(index))
                woken.withLock { $0.append(Double(index)) }
            }
        }
        await clock.waitForSleepers(3)
        clock.advance(by: 1.5)
        try await sleepers[0].value
        #expect(clock.sleeperCount == 2)
        clock.advance(to: 103)
        for sleeper in sleepers { try await sleeper.value }
        #expect(woken.withLock { Set($0) } == [1, 2, 3])
        #expect(clock.sleeperCount == 0)
    }

    @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
        let clock = ManualClock(now: 5)
        try await clock.sleep(until: 5)
        try await clock.sleep(for: 0)
        try await clock.sleep(until: -1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func aCancelledSleeperThrowsAndStopsWaiting() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: 60) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0, "the cancelled sleeper is forgotten")
        // Cancelled before it sleeps: it never waits.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: 60)
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(clock.sleeperCount == 0)
        clock.advance(by: 120)
    }

    @Test func aThreadWaitingOnAConditionWakesAtItsDeadline() async throws {
        let clock = ManualClock()
        let condition = NSCondition()
        let waiting = Task {
            await onThread { () -> (timedOut: Bool, at: Double) in
                condition.lock()
                defer { condition.unlock() }
                // As the callers use it: wait on until the deadline has passed.
                while clock.wait(on: condition, until: 5) {}
                return (true, clock.now)
            }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: 4)
        #expect(clock.sleeperCount == 1, "a second early: still waiting")
        clock.advance(by: 1)
        let outcome = await waiting.value
        #expect(outcome.timedOut && outcome.at == 5)
    }

    @Test func aSignalWakesAConditionWaiterBeforeItsDeadline() async throws {
        let clock = ManualClock()
        let condition = NSCondition()
        let flag = Shared(false)
        let waiting = Task {
            await onThread { () -> Bool in
                condition.lock()
                defer { condition.unlock() }
                var inTime = true
                while !flag.withLock({ $0 }), inTime { inTime = clock.wait(on: condition, until: 5) }
                return inTime
            }
        }
        await clock.waitForSleepers(1)
        condition.withLock {
            flag.withLock { $0 = true }
            condition.signal()
        }
        #expect(await waiting.value, "woken by the signal, before its deadline")
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == 0)
    }

    @Test func anAlarmRingsWhenTheClockReachesItsDeadline() async throws {
        let clock = ManualClock()
        let (rung, ring) = AsyncStream<Double>.makeStream()
        _ = clock.alarm(at: 2) { ring.yield(clock.now) }
        let cancelled = clock.alarm(at: 1) { ring.yield(-1) }
        await clock.waitForSleepers(2)
        cancelled.cancel()
        #expect(clock.sleeperCount == 1, "the cancelled alarm waits no more")
        clock.advance(by: 1.5)
        #expect(clock.sleeperCount == 1, "not yet")
        clock.advance(by: 0.5)
        var times = rung.makeAsyncIterator()
        #expect(await times.next() == 2, "rung at 2 s; the cancelled one never")
    }

    @Test func theWallTimeMovesWithTheClock() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        let clock = ManualClock(now: 50, wallTime: start)
        #expect(clock.wallTime == start)
        clock.advance(by: 90)
        #expect(clock.wallTime == start.addingTimeInterval(90))
        #expect(clock.now == 140)
    }
}

/// The real clock: monotonic, and its waits last what they say (at least).
@Suite(.timeLimit(.minutes(1))) struct SystemClockTests {
    @Test func aSleepLastsItsTimeOnTheClock() async throws {
        let clock = SystemClock.shared
        let before = clock.now
        try await clock.sleep(for: 0.05)
        let after = clock.now
        #expect(after - before >= 0.05, "\(after - before) s")
        #expect(abs(clock.wallTime.timeIntervalSinceNow) < 1)
    }

    @Test func aCancelledSleepEndsAtOnce() async throws {
        let clock = SystemClock.shared
        let before = clock.now
        let sleeper = Task { try await clock.sleep(for: 3600) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.now - before < 60)
    }

    @Test func aConditionWaitEndsAtItsDeadline() async {
        let clock = SystemClock.shared
        let (inTime, waited) = await onThread { () -> (Bool, Double) in
            let condition = NSCondition()
            condition.lock()
            defer { condition.unlock() }
            let start = clock.now
            let deadline = start + 0.05
            var inTime = true
            while inTime { inTime = clock.wait(on: condition, until: deadline) }
            return (inTime, clock.now - start)
        }
        #expect(!inTime && waited >= 0.05, "\(waited) s")
    }

    @Test func anAlarmRings() async {
        let clock = SystemClock.shared
        let (rung, ring) = AsyncStream<Double>.makeStream()
        let deadline = clock.now + 0.05
        _ = clock.alarm(at: deadline) { ring.yield(clock.now) }
        var times = rung.makeAsyncIterator()
        let at = await times.next()
        #expect((at ?? 0) >= deadline)
    }

    @Test func aPollTimeoutCountsUpToTheDeadline() {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        let microseconds = UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1000
        #expect(SystemClock.pollTimeout(untilMonotonicMicroseconds: microseconds) == 0, "passed")
        let ahead = SystemClock.pollTimeout(untilMonotonicMicroseconds: microseconds + 5_000_000)
        #expect(ahead > 4000 && ahead <= 5000, "\(ahead) ms")
    }
}
