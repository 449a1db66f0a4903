import CLinux
import Foundation

/// Calls `gone` once when the runtime folder is removed or renamed, or the
/// socket in it is (the daemon would otherwise play on unreachable while a
/// toggle starts a second one). The kernel tells (inotify): the thread
/// waiting for it sleeps in `read`, so watching costs no CPU.
final class FolderWatch: @unchecked Sendable {
    private let descriptor: Int32
    private let watch: Int32
    private let lock = NSLock()
    private var stopped = false

    /// nil when the kernel cannot watch (no inotify): the daemon runs as before.
    init?(folder: String, socketName: String, gone: @escaping @Sendable (String) -> Void) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_DELETE | IN_MOVED_FROM)
        watch = inotify_add_watch(descriptor, folder, mask)
        guard watch >= 0 else {
            Glibc.close(descriptor)
            return nil
        }
        let thread = Thread { [self] in run(socketName: socketName, gone: gone) }
        thread.name = "mediaplay.folder-watch"
        thread.start()
    }

    private func run(socketName: String, gone: @escaping @Sendable (String) -> Void) {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, size)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameLength = Int(event.len)
                let name = nameLength > 0
                    ? String(cString: (buffer + offset + MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self)) : ""
                offset += MemoryLayout<inotify_event>.size + nameLength
                if event.mask & UInt32(IN_IGNORED) != 0 { return }  // stopped, or the folder is gone
                if lock.withLock({ stopped }) { continue }
                if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                    gone("the runtime folder was removed or moved")
                } else if name == socketName {
                    gone("its socket was removed")
                }
            }
        }
    }

    // Closed here, not by the thread: `stop` may still remove the watch
    // after the thread ended (the folder went away), and must not touch a
    // descriptor number that another file may have taken by then.
    deinit { Glibc.close(descriptor) }

    /// Stops watching (the daemon's own removal of its socket is not news).
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        // Removing the watch wakes the thread with IN_IGNORED; it then ends.
        if first { inotify_rm_watch(descriptor, watch) }
    }
}
