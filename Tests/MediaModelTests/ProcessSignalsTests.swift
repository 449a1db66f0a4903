import Foundation
import MediaModel
import Testing

/// Signals are watched from the moment `watch` returns: one sent at once
/// reaches the handler (libdispatch's sources lost it 4 times in 5).
@Suite struct ProcessSignalsTests {
    @Test func aSignalSentAtOnceIsHeardEveryTime() {
        for _ in 0..<20 {
            let heard = DispatchSemaphore(value: 0)
            let watch = ProcessSignals.shared.watch([SIGUSR2]) { number in
                if number == SIGUSR2 { heard.signal() }
            }
            kill(getpid(), SIGUSR2)
            #expect(heard.wait(timeout: .now() + 30) == .success, "SIGUSR2 sent right after watch was lost")
            watch.cancel()
        }
    }

    @Test func twoWatchersHearTheSameSignal() {
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let one = ProcessSignals.shared.watch([SIGUSR1]) { _ in first.signal() }
        let two = ProcessSignals.shared.watch([SIGUSR1]) { _ in second.signal() }
        kill(getpid(), SIGUSR1)
        #expect(first.wait(timeout: .now() + 30) == .success)
        #expect(second.wait(timeout: .now() + 30) == .success)
        one.cancel()
        two.cancel()
    }
}
