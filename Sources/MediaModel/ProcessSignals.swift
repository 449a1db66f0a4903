import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Signals as events, with none lost: a handler installed with `sigaction`
/// at once writes each signal's number to a pipe, and one thread reads the
/// pipe and calls the watchers. (libdispatch's signal sources register
/// later, on a thread of their own: a signal in between met the `SIG_IGN`
/// set for them and was lost; a Ctrl-C right after `fetch` started was
/// ignored, 4 times in 5 when sent at once.)
public final class ProcessSignals: Sendable {
    public static let shared = ProcessSignals()

    /// A watch until cancelled.
    public final class Watch: Sendable {
        fileprivate let id: UInt64
        fileprivate let signals: [Int32]
        fileprivate init(id: UInt64, signals: [Int32]) {
            self.id = id
            self.signals = signals
        }

        /// Stops calling the handler; a signal nobody watches is back to its default action.
        public func cancel() { ProcessSignals.shared.remove(self) }
    }

    private struct Watchers {
        var next: UInt64 = 0
        var handlers: [UInt64: (signals: [Int32], handler: @Sendable (Int32) -> Void)] = [:]
        var readerStarted = false
    }

    private let watchers = Mutex(Watchers())

    private init() {}

    /// Calls `handler` (on the signal thread, one signal at a time) for each
    /// of `signals` that comes from now on; their default actions are off
    /// while watched. A handler that must not run on that thread hands the
    /// work on (a queue, a continuation).
    public func watch(_ signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) -> Watch {
        // The pipe exists before any handler can write to it.
        let readEnd = signalPipe.read
        // Handlers are installed and removed under the lock, so a watch and
        // a cancel of the same signal never undo each other.
        let id = watchers.withLock { watchers in
            watchers.next += 1
            watchers.handlers[watchers.next] = (signals, handler)
            if !watchers.readerStarted {
                watchers.readerStarted = true
                startReading(readEnd)
            }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = processSignalsHandler
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            for number in signals { sigaction(number, &action, nil) }
            return watchers.next
        }
        return Watch(id: id, signals: signals)
    }

    private func remove(_ watch: Watch) {
        watchers.withLock { watchers in
            watchers.handlers[watch.id] = nil
            let still = Set(watchers.handlers.values.flatMap(\.signals))
            for number in watch.signals where !still.contains(number) { signal(number, SIG_DFL) }
        }
    }

    /// The pipe is made once, before any handler can write to it; the
    /// thread reads it for the life of the process (blocked in `read`: no CPU).
    private func startReading(_ readEnd: Int32) {
        let thread = Thread { [self] in
            var number: UInt8 = 0
            while true {
                let got = read(readEnd, &number, 1)
                if got < 0 && errno == EINTR { continue }
                guard got == 1 else { return }
                let signal = Int32(number)
                let handlers = watchers.withLock { $0.handlers.values.filter { $0.signals.contains(signal) }.map(\.handler) }
                for handler in handlers { handler(signal) }
            }
        }
        thread.name = "mediaplay.signals"
        thread.start()
    }
}

/// The pipe's two ends: made when first used (before a handler is
/// installed); the write end never blocks (a full pipe drops a repeat).
private let signalPipe: (read: Int32, write: Int32) = {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { fatalError("cannot make the signal pipe: \(String(cString: strerror(errno)))") }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    signalPipeWriteEnd.store(ends[1], ordering: .releasing)
    return (ends[0], ends[1])
}()

/// Read by the handler, which may run on any thread at any time: an atomic,
/// set before the first handler is installed.
private let signalPipeWriteEnd = Atomic<Int32>(-1)

/// Only async-signal-safe calls: write(2), and errno kept for the thread it interrupted.
private func processSignalsHandler(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd.load(ordering: .acquiring), &byte, 1)
    errno = saved
}
