import Foundation
import Glibc

/// The processes running now, read once from /proc: for a process a test
/// did not start itself (a program's detached helper), to wait for its end
/// with `Wait.forExit`.
public enum ProcessTable {
    /// The pids of the processes whose arguments (program first) satisfy `matches`.
    public static func pids(where matches: ([String]) -> Bool) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), pid != getpid(),
                  let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"), !raw.isEmpty
            else { return nil }
            let arguments = raw.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            return matches(arguments) ? pid : nil
        }
    }
}
