import Foundation

/// A long output made in pieces on two threads, this one and one other, and
/// written in order: pieces 0, 2, 4… here, 1, 3, 5… there, one finished
/// piece at most waiting, so memory stays that of a few pieces however long
/// the output. (`list --json` of a large feed: its JSON took a third of the
/// run on one core of two.)
enum PiecesInOrder {
    /// `write` returns false when the output failed: no more is made.
    static func write(count: Int, piece: @escaping @Sendable (Int) -> [UInt8], to write: ([UInt8]) -> Bool) {
        guard count > 1 else {
            if count == 1 { _ = write(piece(0)) }
            return
        }
        let handover = Handover()
        let other = Thread {
            for index in stride(from: 1, to: count, by: 2) {
                guard handover.put(piece(index)) else { return }
            }
        }
        other.name = "list pieces"
        other.start()
        for index in 0..<count {
            guard write(index % 2 == 0 ? piece(index) : handover.take()) else {
                handover.cancel()
                return
            }
        }
    }

    /// One piece passed from the other thread to this one.
    private final class Handover: @unchecked Sendable {
        private let condition = NSCondition()
        // Under `condition`.
        private var waiting: [UInt8]?
        private var cancelled = false

        /// Waits until the last piece was taken; false once cancelled.
        func put(_ piece: [UInt8]) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while waiting != nil && !cancelled { condition.wait() }
            guard !cancelled else { return false }
            waiting = piece
            condition.broadcast()
            return true
        }

        func take() -> [UInt8] {
            condition.lock()
            defer { condition.unlock() }
            while waiting == nil { condition.wait() }
            let piece = waiting ?? []
            waiting = nil
            condition.broadcast()
            return piece
        }

        func cancel() {
            condition.lock()
            cancelled = true
            waiting = nil
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// A map over many independent elements made in two halves, on this thread
/// and one other, straight into the one array (below `minimum` elements,
/// here alone: a thread's start costs more than it saves).
package enum InHalves {
    package static func map<T: Sendable>(_ count: Int, minimum: Int = 2_000, _ transform: @escaping @Sendable (Int) -> T) -> [T] {
        guard count >= minimum else { return (0..<count).map(transform) }
        let half = count / 2
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each thread fills its own half; the other's is joined before
            // the array is handed out (no second array for it: a 100,000-item
            // list's rows would have been held one and a half times).
            let storage = Storage(buffer.baseAddress!)
            let done = DispatchSemaphore(value: 0)
            let other = Thread {
                for index in half..<count { (storage.base + index).initialize(to: transform(index)) }
                done.signal()
            }
            other.name = "list rows"
            other.start()
            for index in 0..<half { (storage.base + index).initialize(to: transform(index)) }
            done.wait()
            initialized = count
        }
    }

    private final class Storage<T>: @unchecked Sendable {
        // The array's storage, reached by two threads in disjoint halves.
        let base: UnsafeMutablePointer<T>

        init(_ base: UnsafeMutablePointer<T>) {
            self.base = base
        }
    }
}
