import Foundation
import Synchronization

/// Stops the player (or the downloads) on SIGINT or SIGTERM, so every exit
/// path restores the terminal and finishes output and part files.
package final class StopOnSignals: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]
    private let received: ReceivedSignal

    /// The signal that came, if one did.
    package var signalNumber: Int32? { received.number }

    package init(_ stop: @escaping @Sendable (Int32) -> Void) {
        let received = ReceivedSignal()
        self.received = received
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.record(number)
                stop(number)
            }
            source.resume()
            return source
        }
    }

    package func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// The first stop signal that came.
private final class ReceivedSignal: Sendable {
    private let first = Mutex<Int32?>(nil)
    var number: Int32? { first.withLock { $0 } }
    func record(_ number: Int32) { first.withLock { if $0 == nil { $0 = number } } }
}
