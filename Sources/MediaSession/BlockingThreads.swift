import Foundation

/// Blocking work, each job on a thread of its own that ends with it. A
/// concurrent dispatch queue draws on libdispatch's few pool threads, which
/// everything else in the process shares and which Linux does not grow when
/// they block: beside hundreds of busy tests a player's start waited there
/// over 30 s. The jobs are few and long (opening a device, waiting for a
/// stop, a fetch), so a thread each costs nothing that shows.
struct BlockingThreads: Sendable {
    let name: String

    func async(_ job: @escaping @Sendable () -> Void) {
        let thread = Thread(block: job)
        thread.name = name
        thread.start()
    }
}
