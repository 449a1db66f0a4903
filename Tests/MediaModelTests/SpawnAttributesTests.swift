import Foundation
import Glibc
import MediaModel
import Testing

/// A child started with `SpawnAttributes` starts as from a shell: no signal
/// blocked and none ignored, though the thread that started it blocked one
/// and the process ignores one (the kernel's own account: /proc's SigBlk
/// and SigIgn masks, read by the child itself).
@Suite struct SpawnAttributesTests {
    /// The child's "SigBlk" and "SigIgn" lines, spawned from a thread that
    /// blocks SIGUSR2.
    static func childMasks(_ attributes: SpawnAttributes) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-masks-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var spawned: Int32 = -1
        nonisolated(unsafe) var pid: pid_t = 0
        let thread = Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGUSR2)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let words: [String] = ["/bin/sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            spawned = attributes.with { posix_spawn(&pid, "/bin/sh", &actions, &$0, argv, environ) }
            done.signal()
        }
        thread.start()
        done.wait()
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    @Test(arguments: [SpawnAttributes(), .ownGroup, .ownSession])
    func theChildBlocksAndIgnoresNothing(_ attributes: SpawnAttributes) throws {
        // Ignored in this process (and so in a child that inherited it).
        let previous = signal(SIGTTOU, SIG_IGN)
        defer { signal(SIGTTOU, previous) }
        let masks = try Self.childMasks(attributes)
        func mask(_ name: String) -> UInt64? {
            masks.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        }
        // Signal n is bit n - 1; glibc's own two (32 and 33, its thread
        // cancellation and set-id signals) are no program's to reset.
        let glibcOwn: UInt64 = 1 << 31 | 1 << 32
        #expect(mask("SigBlk") == 0, "\(masks)")
        #expect(mask("SigIgn").map { $0 & ~glibcOwn } == 0, "\(masks)")
    }
}
