import Foundation
import MediaModel
import Synchronization

/// Stops the player (or the downloads) on SIGINT or SIGTERM, so every exit
/// path restores the terminal and finishes output and part files.
package final class StopOnSignals: Sendable {
    private let watch: ProcessSignals.Watch
    private let received: ReceivedSignal

    /// The signal that came, if one did.
    package var signalNumber: Int32? { received.number }

    /// Watching from the moment it returns: a signal right after is not lost.
    package init(_ stop: @escaping @Sendable (Int32) -> Void) {
        let received = ReceivedSignal()
        self.received = received
        watch = ProcessSignals.shared.watch([SIGINT, SIGTERM]) { number in
            received.record(number)
            stop(number)
        }
    }

    package func cancel() {
        watch.cancel()
    }
}

/// The first stop signal that came.
private final class ReceivedSignal: Sendable {
    private let first = Mutex<Int32?>(nil)
    var number: Int32? { first.withLock { $0 } }
    func record(_ number: Int32) { first.withLock { if $0 == nil { $0 = number } } }
}
