import Foundation
import GRDB
import Synchronization
import MediaInterfaces
import MediaModel

#if canImport(Glibc)
import Glibc
#endif

/// The cache as it lies on disk, with no network: `<directory>/entries/`
/// (`NAME` once verified, `NAME.part` while downloading, `NAME.lock`) and
/// the SQLite index beside them. What an entry holds, the kept feeds and the
/// probed details are read here; `list` reads them without loading libcurl.
/// Downloads (MediaCache) write through the same folder.
public final class CacheFolder: Sendable {
    public let directory: String
    package let index: CacheIndex
    /// Where a damaged index was moved when it was rebuilt (nil: it was fine).
    public let recoveredIndex: String?
    /// The dates the index records (last uses, updates, a damaged index's name).
    public let clock: any MediaClock
    /// Kept copies being written beside the caller (`keepBeside`), in the
    /// order they were kept (a later read's copy lands last).
    private let keeping = DispatchGroup()
    private let keepQueue = DispatchQueue(label: "mediaplay.kept-copies")

    public init(directory: String, clock: any MediaClock = SystemClock.shared) throws(CacheError) {
        self.directory = directory
        self.clock = clock
        // What a user downloads and plays is theirs alone: the folders are
        // made 0700 (the index 0600), and existing ones must be this user's
        // real folders (never a link, never changed).
        for folder in [directory, directory + "/entries"] {
            if let problem = OwnFolder.prepare(folder, privateOnly: false) {
                throw CacheError.io("cannot use the cache folder \(folder): \(problem) (pass --cache-dir DIR)")
            }
        }
        // A folder just made, or one holding only what mediaplay writes
        // (a cache of an earlier version), is marked as mediaplay's: only
        // in such a folder does it delete anything.
        CacheTag.claim(directory)
        let indexPath = directory + "/index.sqlite"
        // The index and its companions only as regular files: a link planted
        // there would get mediaplay's tables and mode.
        for suffix in ["", "-wal", "-shm", ".setup-lock"] { EntryFile.removeIfNotRegular(indexPath + suffix) }
        do {
            index = try CacheIndex(path: indexPath, clock: clock)
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            // The files are the truth about bytes: a complete entry is
            // cached whatever the index says. The damaged index is kept
            // aside, and part files, whose byte ranges it held, are dropped
            // (resuming one at a guessed offset could corrupt its entry),
            // only mediaplay's and only in its own folder.
            let aside = indexPath + ".corrupt-\(Int(clock.wallTime.timeIntervalSince1970))"
            for suffix in ["", "-wal", "-shm"] { rename(indexPath + suffix, aside + suffix) }
            let entries = directory + "/entries"
            let names = CacheTag.isMarked(directory) ? (try? FileManager.default.contentsOfDirectory(atPath: entries)) ?? [] : []
            for name in names where name.hasSuffix(".part") && Self.isEntryFileName(name) {
                unlink(entries + "/" + name)
            }
            do {
                index = try CacheIndex(path: indexPath, clock: clock)
            } catch {
                throw CacheError.io("cannot rebuild the cache index in \(directory): \(error) (pass --cache-dir DIR)")
            }
            recoveredIndex = aside
            return
        } catch {
            if access(directory, W_OK) != 0 {
                throw CacheError.io("the cache folder \(directory) is not writable: \(String(cString: strerror(errno))) (check its permissions, or pass --cache-dir DIR)")
            }
            throw CacheError.io("cannot open the cache index in \(directory): \(error) (pass --cache-dir DIR)")
        }
        recoveredIndex = nil
    }

    /// The folder of `directory`, shared while anyone holds it: a command
    /// that reads the index in several places (a folder's details, then its
    /// list) and keeps it for its run opens it once. Each open and close of
    /// the index is a checkpoint and its syncs: a folder's first list had
    /// eleven, most of its wait on a disk that takes its time over a sync.
    public static func shared(directory: String) throws(CacheError) -> CacheFolder {
        let result: Result<CacheFolder, CacheError> = opened.withLock { folders in
            if let folder = folders[directory]?.folder { return .success(folder) }
            do throws(CacheError) {
                let folder = try CacheFolder(directory: directory)
                folders[directory] = Held(folder: folder)
                return .success(folder)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Not kept alive here: a folder nobody holds closes as before.
    private struct Held {
        weak var folder: CacheFolder?
    }

    private static let opened = Mutex<[String: Held]>([:])

    /// The folder for viewing (list): its index opened for reading only,
    /// falling back to a full open when the index is missing, damaged or
    /// older than this program (which then creates, rebuilds or migrates it).
    public static func forViewing(directory: String, clock: any MediaClock = SystemClock.shared) throws(CacheError) -> CacheFolder {
        if let index = try? CacheIndex(readingOnly: directory + "/index.sqlite", clock: clock) {
            return CacheFolder(directory: directory, index: index, clock: clock)
        }
        return try CacheFolder(directory: directory, clock: clock)
    }

    private init(directory: String, index: CacheIndex, clock: any MediaClock) {
        self.directory = directory
        self.index = index
        self.clock = clock
        recoveredIndex = nil
    }

    // MARK: - Remote feeds

    /// The last good copy of the feed at `url`, if one was kept.
    public func keptFeed(for url: URL) -> KeptFeed? {
        index.keptFeed(url.absoluteString)
    }

    /// Changes whenever the kept copy of `url` does (a cheap read: no body).
    public func keptFeedStamp(for url: URL) -> String? {
        index.keptFeedStamp(url.absoluteString)
    }

    /// Keeps `feed` as the last good copy of its URL.
    public func keep(_ feed: KeptFeed) throws(CacheError) {
        do { try index.keep(feed) } catch { throw CacheError.io("cannot keep the feed in \(directory)/index.sqlite: \(error)") }
    }

    /// `keep` on the folder's own queue (off the caller), for a feed the caller goes on to list:
    /// a server's 10,000 items took 3.7 ms to write, beside the rows and
    /// JSON made meanwhile (the index takes reads while it is written). The
    /// folder waits for it before it closes; a copy that cannot be written
    /// is left out, as `try? keep` leaves it.
    public func keepBeside(_ feed: KeptFeed) {
        keepQueue.async(group: keeping) { [index] in try? index.keep(feed) }
    }

    deinit { keeping.wait() }

    /// The server confirmed the kept copy (a 304) at `time`.
    public func confirmKeptFeed(for url: URL, at time: Date) {
        try? index.confirm(feed: url.absoluteString, at: time.timeIntervalSince1970)
    }

    // MARK: - Web pages

    /// What the page at `url` resolved to, when it was kept.
    public func keptPage(for url: URL) -> ResolvedPage? {
        guard let text = index.pageResolution(url.absoluteString) else { return nil }
        return try? JSONDecoder().decode(ResolvedPage.self, from: Data(text.utf8))
    }

    /// Keeps a page's resolution (a failure to keep it costs a second
    /// resolution, nothing more).
    public func keep(_ page: ResolvedPage, for url: URL) {
        guard let data = try? JSONEncoder().encode(page) else { return }
        try? index.keep(
            page: url.absoluteString, resolution: String(decoding: data, as: UTF8.self), mediaURL: page.media.url.absoluteString,
            audioURL: page.audio?.url.absoluteString, title: page.title, at: clock.wallTime.timeIntervalSince1970
        )
    }

    /// The pages' titles, by the URL of the media each resolved to.
    public func pageTitles() -> [String: String] { index.pageTitles() }

    // MARK: - Probed details

    /// Every file's probed details, by URL (`file://` for local files).
    public func storedDetails() -> [String: StoredDetails] {
        index.allDetails()
    }

    /// One file's probed details, by its URL.
    public func storedDetails(for url: String) -> StoredDetails? {
        index.details(for: url)
    }

    public func store(_ details: StoredDetails, for url: String) {
        try? index.store(details, for: url)
    }

    /// Many files' details at once, in one transaction.
    public func store(_ all: [(url: String, stored: StoredDetails)]) {
        try? index.store(all)
    }

    // MARK: - Entries

    package struct EntryPaths {
        package var name: String
        package var data: String
        package var part: String
        package var lock: String
    }

    package func paths(for url: URL) -> EntryPaths {
        paths(named: Self.entryName(for: url))
    }

    package func paths(named name: String) -> EntryPaths {
        let base = directory + "/entries/" + name
        return EntryPaths(name: name, data: base, part: base + ".part", lock: base + ".lock")
    }

    /// SHA-256 of the URL, plus its extension when it is a plain one, so that
    /// people (and file type sniffers) can tell entries apart.
    public static func entryName(for url: URL) -> String {
        let hash = SHA256.hex(of: url.absoluteString)
        let ext = url.pathExtension.lowercased()
        if !ext.isEmpty, ext.count <= 8, ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            return hash + "." + ext
        }
        return hash
    }

    /// Whether `name` is one mediaplay gives a file in the entries folder
    /// (`entryName`, and `.part` or `.lock` after it): no other file there
    /// is ever removed.
    public static func isEntryFileName(_ name: String) -> Bool {
        var rest = Substring(name)
        if rest.hasSuffix(".part") || rest.hasSuffix(".lock") { rest = rest.dropLast(5) }
        let bytes = Array(rest.utf8)
        func isHex(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) }
        func isPlain(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
        guard bytes.count >= 64, bytes[..<64].allSatisfy(isHex) else { return false }
        let ext = bytes[64...]
        return ext.isEmpty || (ext.first == UInt8(ascii: ".") && (2...9).contains(ext.count) && ext.dropFirst().allSatisfy(isPlain))
    }

    /// Whether mediaplay made this folder (its CACHEDIR.TAG says so): it
    /// deletes nothing in another.
    public var isOwn: Bool { CacheTag.isMarked(directory) }

    /// Throws, naming the folder and the fix, unless mediaplay made it.
    /// `action` says what was refused ("clearing").
    public func checkOwn(before action: String) throws(CacheError) {
        guard !isOwn else { return }
        throw CacheError.io(
            "not \(action) \(directory): it is not a cache folder mediaplay made (it has no CACHEDIR.TAG of mediaplay's); nothing was removed (pass --cache-dir DIR, a folder for mediaplay alone)"
        )
    }

    /// The path of the complete, verified file for `url`, if cached (or the
    /// path itself for a readable `file` URL).
    public func cachedFile(for url: URL) -> String? {
        if url.isFileURL { return access(url.path, R_OK) == 0 ? url.path : nil }
        let data = paths(for: url).data
        return Self.fileSize(data) != nil ? data : nil
    }

    /// What the cache holds for `url`, reading the shared files and index, so
    /// it also sees downloads made by other processes.
    public func status(for url: URL) -> EntryStatus {
        status(for: url, paths: paths(for: url), record: { index.record(for: url.absoluteString) })
    }

    fileprivate func status(for url: URL, paths: EntryPaths, record readRecord: () -> IndexRecord?) -> EntryStatus {
        if let size = Self.fileSize(paths.data) { return .cached(size: size) }
        let record = readRecord()
        let received = Self.heldRanges(record: record, partPath: paths.part).byteCount
        if EntryLock.isHeld(path: paths.lock) { return .downloading(received: received, total: record?.size) }
        if record?.state == .failed { return .failed(reason: record?.error ?? "failed", received: received) }
        if received > 0 { return .partial(received: received, total: record?.size) }
        return .notDownloaded
    }

    /// What the folder holds now, read once (every index row, one listing of
    /// the entries folder): a whole list asks per item without a query or a
    /// stat per item (a query each took 1.2 s for 10,000 items).
    public func snapshot() throws(CacheError) -> CacheSnapshot {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/entries")) ?? []
        let all: [IndexRecord]
        do { all = try index.allRecords() } catch { throw CacheError.io("cannot read the cache index in \(directory): \(error)") }
        let records = Dictionary(all.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        return CacheSnapshot(folder: self, files: Set(names), records: records, details: index.allDetails(), pages: index.pageMedia())
    }

    /// What a part file holds: the ranges the index recorded (a ranged
    /// transfer wrote out of order), else everything up to its size.
    package static func heldRanges(record: IndexRecord?, partPath: String) -> HeldRanges {
        guard let size = fileSize(partPath), size > 0 else { return HeldRanges() }
        if let text = record?.ranges {
            return (HeldRanges(text: text) ?? HeldRanges()).clamped(below: size)
        }
        return HeldRanges([0..<size])
    }

    /// The size of a regular file (nil: none there, or not a regular file).
    public static func fileSize(_ path: String) -> Int64? {
        EntryFile.size(path)
    }
}

/// The cache folder as read once by `CacheFolder.snapshot()`. Files are
/// still looked at (a size, a lock) for entries the index or the listing
/// names; an entry's name comes from its index row, so a URL is hashed only
/// when files the index does not know are there (after a rebuilt index).
public struct CacheSnapshot: Sendable {
    public let folder: CacheFolder
    let records: [String: IndexRecord]
    /// Entries folder names (data, part and lock files) no index row names.
    let unindexed: Set<String>
    /// Every probed file's details, by URL.
    let details: [String: StoredDetails]
    /// The media each resolved web page plays, by the page's URL: a page's
    /// item is as cached as its media.
    let pages: [String: (media: URL, audio: URL?, title: String?)]

    init(
        folder: CacheFolder, files: Set<String>, records: [String: IndexRecord], details: [String: StoredDetails],
        pages: [String: (media: URL, audio: URL?, title: String?)] = [:]
    ) {
        self.pages = pages
        self.folder = folder
        self.records = records
        self.details = details
        let named = Set(records.values.map(\.name))
        unindexed = files.filter { file in
            var base = Substring(file)
            for suffix in [".part", ".lock"] where base.hasSuffix(suffix) { base = base.dropLast(suffix.count) }
            return !named.contains(String(base))
        }
    }

    /// Where `url`'s entry is, if the folder may hold anything for it.
    private func paths(for url: URL) -> CacheFolder.EntryPaths? {
        if let record = records[url.absoluteString] { return folder.paths(named: record.name) }
        guard !unindexed.isEmpty else { return nil }
        let paths = folder.paths(for: url)
        return unindexed.contains(paths.name) || unindexed.contains(paths.name + ".part") ? paths : nil
    }

    /// The title yt-dlp gave the web page at `url`, once resolved.
    public func pageTitle(for url: URL) -> String? { pages.isEmpty ? nil : pages[url.absoluteString]?.title }

    /// What the cache holds for `url` (as `CacheFolder.status(for:)`).
    public func status(for url: URL) -> EntryStatus {
        // An empty cache (a first list) holds nothing of any URL: no key made or hashed.
        if records.isEmpty && pages.isEmpty && unindexed.isEmpty { return .notDownloaded }
        if !pages.isEmpty, records[url.absoluteString] == nil, let page = pages[url.absoluteString] {
            let pictures = status(for: page.media)
            guard let audio = page.audio else { return pictures }
            // Pictures and sound apart: cached when both are, else the one not yet.
            let sound = status(for: audio)
            switch (pictures, sound) {
            case let (.cached(size: one), .cached(size: other)): return .cached(size: one + other)
            case (.cached, _): return sound
            default: return pictures
            }
        }
        guard let paths = paths(for: url) else { return .notDownloaded }
        return folder.status(for: url, paths: paths) { records[url.absoluteString] }
    }

    /// The complete file for `url`, if cached (or the path of a readable `file` URL).
    public func cachedFile(for url: URL) -> String? {
        if url.isFileURL { return folder.cachedFile(for: url) }
        if records[url.absoluteString] == nil, let page = pages[url.absoluteString] {
            if let audio = page.audio, cachedFile(for: audio) == nil { return nil }
            return cachedFile(for: page.media)
        }
        guard let paths = paths(for: url) else { return nil }
        return CacheFolder.fileSize(paths.data) != nil ? paths.data : nil
    }
}
