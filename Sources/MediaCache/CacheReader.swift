import Foundation
import MediaCacheFolder
import MediaInterfaces
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Reads a cache entry by offset, whether it is complete or still being
/// downloaded: a read of bytes not yet there blocks until they arrive
/// (asking for a ranged transfer when no transfer will bring them soon), so
/// playback can start before the download ends.
///
/// Reads block: call them from a thread of your own, never from Swift's
/// cooperative pool. `interrupt()` ends every wait at once.
public final class CacheReader: @unchecked Sendable {
    /// A name for messages: the URL's last path component.
    public let name: String
    private let entry: PartialEntry?
    private let completePath: String?
    private let interrupted = Atomic<Bool>(false)
    /// Called with true when a read starts waiting for the network and with
    /// false when it stops (set before the first read).
    public var onWait: (@Sendable (Bool) -> Void)?

    // Used by the one reading thread only.
    private var fd: Int32 = -1
    private var fdPath: String?

    init(name: String, path: String) {
        self.name = name
        completePath = path
        entry = nil
    }

    init(name: String, entry: PartialEntry) {
        self.name = name
        self.entry = entry
        completePath = nil
        entry.readerOpened()
    }

    deinit {
        if fd >= 0 { close(fd) }
        entry?.readerClosed()
    }

    /// Bytes this process's transfers wrote into the entry so far (0 for an
    /// entry that was complete): equal to the size when nothing was fetched twice.
    public var bytesFetched: Int64 { entry?.written ?? 0 }

    /// Whether the whole file was at hand when the reader opened.
    public var wasComplete: Bool { entry == nil }

    /// The file's size; waits for the server's first answer. Nil when the
    /// server did not say (then the reader cannot seek beyond what arrived).
    public func size() throws(CacheError) -> Int64? {
        guard let entry else { return completePath.flatMap(MediaCache.fileSize) }
        return try entry.waitForSize { isInterrupted }
    }

    /// Reads up to `buffer.count` bytes at `offset`; waits until at least one
    /// is there. Returns 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(CacheError) -> Int {
        guard buffer.count > 0 else { return 0 }
        var path = completePath ?? ""
        var limit = Int64.max
        if let entry {
            let wait = onWait ?? { _ in }
            switch try entry.waitForBytes(at: offset, interrupted: { isInterrupted }, onWait: wait) {
            case .endOfFile:
                return 0
            case let .held(end, heldPath):
                path = heldPath
                limit = end
            }
        }
        try openFile(path)
        let count = Int(min(Int64(buffer.count), limit - offset))
        while true {
            let result = pread(fd, buffer.baseAddress, count, off_t(offset))
            if result >= 0 { return result }
            if errno == EINTR { continue }
            throw CacheError.io("cannot read \(path): \(String(cString: strerror(errno)))")
        }
    }

    private var isInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    /// Ends every wait, now and later, with `cancelled`.
    public func interrupt() {
        interrupted.store(true, ordering: .relaxed)
        entry?.wakeReaders()
    }

    /// A user's own file (a local item, or a cached entry: links followed
    /// for the former, which `MediaCache` checked), opened without blocking
    /// and only when it is a regular file.
    static func openLocal(_ path: String) -> Int32 {
        let opened = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else { return -1 }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(opened)
            errno = EINVAL
            return -1
        }
        _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
        return opened
    }

    /// The part file keeps its inode when renamed into place, so an open
    /// descriptor stays good; a new one is opened only for another file.
    private func openFile(_ path: String) throws(CacheError) {
        if fd >= 0 && (fdPath == path || path == entry?.dataPath) { return }
        // Never a FIFO or a device (an open that blocks for ever), never
        // a link planted in the cache.
        var opened = entry == nil ? Self.openLocal(path) : EntryFile.open(path, O_RDONLY)
        // The part file may have been renamed into place a moment before the
        // entry hears of it.
        if opened < 0, errno == ENOENT, let complete = entry?.dataPath, complete != path {
            opened = EntryFile.open(complete, O_RDONLY)
        }
        guard opened >= 0 else { throw CacheError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        if fd >= 0 { close(fd) }
        fd = opened
        fdPath = path
    }
}
