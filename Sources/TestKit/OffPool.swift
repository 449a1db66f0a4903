import Foundation

/// Runs blocking work (waiting for a process, a socket read, a tmux call) on
/// a thread of its own and awaits its result.
///
/// Swift's cooperative pool has one thread per core, two on CI. Tests run in
/// parallel, and a test that blocks a pool thread starves every in-process
/// daemon, cache or player that another test is waiting on: one CI run saw a
/// daemon's reply miss a 10 s timeout and a held download pass libcurl's
/// 15 s low-speed limit that way. So tests never block the pool either.
public func offPool<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread {
            do throws(Failure) {
                continuation.resume(returning: .success(try body()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }.start()
    }
    return try result.get()
}
