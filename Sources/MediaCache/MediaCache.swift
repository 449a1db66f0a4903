import MediaCacheFolder
import Foundation
import MediaModel
import MediaFeed
import GRDB
import Synchronization

#if canImport(Glibc)
import Glibc
import MediaInterfaces
#endif

/// The download-once cache: fetches http(s) URLs with libcurl into
/// `<directory>/entries/`, indexed in `<directory>/index.sqlite`.
///
/// - One transfer per URL however many callers ask at once (callers of this
///   process share one in-flight download; other processes wait on the
///   entry's lock file and then find the finished file).
/// - Bytes land in `NAME.part`; only a verified file is renamed to `NAME`.
///   After a crash at any moment an entry is complete or resumable.
/// - `file` URLs are used in place, never copied.
public final class MediaCache: Sendable {
    /// The folder and index this cache downloads into.
    public let folder: CacheFolder
    public let configuration: CacheConfiguration
    /// Retry delays, transfer rates and the dates the index keeps run on it.
    public let clock: any MediaClock
    private let inFlight = Mutex<[String: InFlight]>([:])
    private let transfers: TransferEngine

    public init(directory: String, configuration: CacheConfiguration = CacheConfiguration(), clock: any MediaClock = SystemClock.shared) throws(CacheError) {
        folder = try CacheFolder(directory: directory, clock: clock)
        self.configuration = configuration
        self.clock = clock
        transfers = TransferEngine.serving(clock)
    }

    public var directory: String { folder.directory }
    var index: CacheIndex { folder.index }
    /// Where a damaged index was moved when this cache rebuilt it (nil: it was fine).
    public var recoveredIndex: String? { folder.recoveredIndex }

    // MARK: - Looking (the folder's, here too for callers that download)

    public func keptFeed(for url: URL) -> KeptFeed? { folder.keptFeed(for: url) }
    public func keptFeedStamp(for url: URL) -> String? { folder.keptFeedStamp(for: url) }
    public func keep(_ feed: KeptFeed) throws(CacheError) { try folder.keep(feed) }
    public func confirmKeptFeed(for url: URL, at time: Date) { folder.confirmKeptFeed(for: url, at: time) }
    public func storedDetails() -> [String: StoredDetails] { folder.storedDetails() }
    public func storedDetails(for url: String) -> StoredDetails? { folder.storedDetails(for: url) }
    public func store(_ details: StoredDetails, for url: String) { folder.store(details, for: url) }
    public func cachedFile(for url: URL) -> String? { folder.cachedFile(for: url) }
    public func status(for url: URL) -> EntryStatus { folder.status(for: url) }
    public static func entryName(for url: URL) -> String { CacheFolder.entryName(for: url) }
    func paths(for url: URL) -> CacheFolder.EntryPaths { folder.paths(for: url) }
    static func heldRanges(record: IndexRecord?, partPath: String) -> HeldRanges { CacheFolder.heldRanges(record: record, partPath: partPath) }
    static func fileSize(_ path: String) -> Int64? { CacheFolder.fileSize(path) }

    /// Every entry the index knows, most recently used first. An entry that
    /// holds nothing (an interrupted download that got no bytes: an empty
    /// `.part`, or none) is cleaned away instead of listed.
    public func entries() -> [CacheEntryInfo] {
        index.all().compactMap { record in
            guard let url = URL(string: record.url) else { return nil }
            let status = status(for: url)
            if status == .notDownloaded, (try? removeEntry(for: url)) != .busy { return nil }
            return CacheEntryInfo(
                url: record.url, path: paths(for: url).data, status: status,
                contentType: record.contentType, lastAccess: Date(timeIntervalSince1970: record.lastAccess)
            )
        }
    }

    /// What `removeEntry` did.
    public enum Removal: Sendable, Equatable {
        case removed(bytes: Int64)
        /// A download (of any process) holds it: nothing was removed.
        case busy
        /// Nothing was cached or partly downloaded for the URL.
        case absent
    }

    /// Removes one URL's entry (data, part file, index row) unless a
    /// download holds it; throws, removing nothing, in a folder mediaplay
    /// did not make.
    @discardableResult
    public func removeEntry(for url: URL) throws(CacheError) -> Removal {
        try folder.checkOwn(before: "removing from")
        let paths = paths(for: url)
        let known = index.record(for: url.absoluteString) != nil
        let files = [paths.data, paths.part].filter { Self.fileSize($0) != nil }
        guard known || !files.isEmpty else { return .absent }
        guard let lock = try? EntryLock(path: paths.lock), lock.tryLock() else { return .busy }
        var bytes: Int64 = 0
        for file in files {
            bytes += Self.fileSize(file) ?? 0
            _ = unlink(file)
        }
        try? index.delete(url.absoluteString)
        _ = unlink(paths.lock)
        lock.unlock()
        return .removed(bytes: bytes)
    }

    /// Bytes on disk in the entries folder, partial files included.
    public func totalSize() -> Int64 {
        let folder = directory + "/entries"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.reduce(0) { $0 + (Self.fileSize(folder + "/" + $1) ?? 0) }
    }

    /// Removes every entry not in use by a download (of any process).
    /// Returns how many entries were removed, the bytes freed, and how many
    /// were skipped because a download holds them. Only files named as
    /// mediaplay names entries go, and only in a folder it made (else it
    /// throws, removing nothing).
    public func clear() throws(CacheError) -> (removed: Int, bytes: Int64, busy: Int) {
        try self.folder.checkOwn(before: "clearing")
        var removed = 0
        var bytes: Int64 = 0
        var busy = 0
        let folder = directory + "/entries"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        // Group files by entry name (NAME, NAME.part, NAME.lock).
        var groups: [String: [String]] = [:]
        for name in names where CacheFolder.isEntryFileName(name) {
            var base = name
            for suffix in [".part", ".lock"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
            groups[base, default: []].append(name)
        }
        let records = Dictionary(index.all().map { ($0.name, $0.url) }, uniquingKeysWith: { first, _ in first })
        for (base, files) in groups {
            let lockPath = folder + "/" + base + ".lock"
            let lock = try? EntryLock(path: lockPath)
            guard let lock, lock.tryLock() else {
                busy += 1
                continue
            }
            for file in files where !file.hasSuffix(".lock") {
                bytes += Self.fileSize(folder + "/" + file) ?? 0
                _ = unlink(folder + "/" + file)
            }
            if let url = records[base] { try? index.delete(url) }
            _ = unlink(lockPath)
            lock.unlock()
            removed += 1
        }
        // Index rows whose files were already gone.
        for record in index.all() where groups[record.name] == nil {
            try? index.delete(record.url)
        }
        return (removed, bytes, busy)
    }

    // MARK: - Fetching

    /// Downloads `url` unless cached, and returns the path of the verified file.
    public func fetch(_ url: URL, refresh: Bool = false) async throws(CacheError) -> String {
        for await event in download(url, refresh: refresh) {
            switch event {
            case .progress: continue
            case let .finished(path, _): return path
            case let .failed(error): throw error
            }
        }
        throw CacheError.cancelled
    }

    /// Starts (or joins) the download of `url` and streams its progress; the
    /// stream ends after one `finished` or `failed` event. With `refresh`, a
    /// cached file is revalidated with the server and replaced if it changed.
    /// `deadline`: seconds the download may take in all, in one try (a
    /// picture for a cell: `NetworkLimits.timeout`), where a media file has none.
    public func download(_ url: URL, refresh: Bool = false, deadline: Int? = nil, headers: [String: String] = [:]) -> AsyncStream<DownloadEvent> {
        /// A stream of one event: the answer is known now.
        func answered(_ event: DownloadEvent) -> AsyncStream<DownloadEvent> {
            let (stream, continuation) = AsyncStream.makeStream(of: DownloadEvent.self)
            continuation.yield(event)
            continuation.finish()
            return stream
        }
        if url.isFileURL {
            return answered(LocalFile.isReadable(url.path) ? .finished(path: url.path, alreadyCached: true) : .failed(.missingFile(url.path)))
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return answered(.failed(.unsupported("only http, https and file URLs can be used: \(url.absoluteString.redactingUserinfo)")))
        }
        let paths = paths(for: url)
        if !refresh, EntryFile.isRegular(paths.data) {
            index.touch(url.absoluteString)
            return answered(.finished(path: paths.data, alreadyCached: true))
        }
        let (flight, isNew) = join(url, paths: paths)
        // Subscribed before it starts: no event is missed.
        let events = flight.events()
        if isNew { launch(flight, url: url, paths: paths, refresh: refresh, deadline: deadline, headers: headers) }
        return events
    }

    /// A reader of `url`'s bytes: the cached file, or the entry as it
    /// downloads (starting the download, or joining the one under way), so
    /// that playback can begin at once. Reads block; see `CacheReader`.
    public func open(_ url: URL, headers: [String: String] = [:]) throws(CacheError) -> CacheReader {
        let name = url.lastPathComponent.isEmpty ? (url.host ?? url.absoluteString.redactingUserinfo) : url.lastPathComponent
        if url.isFileURL {
            guard LocalFile.isReadable(url.path) else { throw .missingFile(url.path) }
            return CacheReader(name: name, path: url.path)
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupported("only http, https and file URLs can be used: \(url.absoluteString.redactingUserinfo)")
        }
        let paths = paths(for: url)
        if EntryFile.isRegular(paths.data) {
            index.touch(url.absoluteString)
            return CacheReader(name: name, path: paths.data)
        }
        let (flight, isNew) = join(url, paths: paths)
        if isNew { launch(flight, url: url, paths: paths, refresh: false, headers: headers) }
        return CacheReader(name: name, entry: flight.entry)
    }

    /// `open`, once the server has answered (its first response brings the
    /// first bytes too, so waiting costs nothing): a missing file fails here,
    /// as a download error, before anyone tries to decode it. The wait runs
    /// on a thread of its own, never on Swift's cooperative pool.
    public func openWhenAnswered(_ url: URL, headers: [String: String] = [:]) async throws(CacheError) -> CacheReader {
        let result: Result<CacheReader, CacheError> = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Result { () throws(CacheError) in
                    let reader = try self.open(url, headers: headers)
                    _ = try reader.size()
                    return reader
                })
            }.start()
        }
        return try result.get()
    }

    /// The in-process download of `url`: the one under way, or a new one the
    /// caller launches (`isNew`).
    private func join(_ url: URL, paths: CacheFolder.EntryPaths) -> (flight: InFlight, isNew: Bool) {
        inFlight.withLock { flights -> (InFlight, Bool) in
            if let existing = flights[url.absoluteString] { return (existing, false) }
            let flight = InFlight(entry: PartialEntry(partPath: paths.part, dataPath: paths.data))
            flights[url.absoluteString] = flight
            return (flight, true)
        }
    }

    /// Stops the in-process download of `url`, if any (its partial file stays).
    public func cancel(_ url: URL) {
        let flight = inFlight.withLock { $0[url.absoluteString] }
        flight?.cancel()
        transfers.wake()
    }

    private func launch(_ flight: InFlight, url: URL, paths: CacheFolder.EntryPaths, refresh: Bool, deadline: Int? = nil, headers: [String: String] = [:]) {
        let key = url.absoluteString
        let finish: @Sendable (DownloadEvent) -> Void = { [self] event in
            self.inFlight.withLock { _ = $0.removeValue(forKey: key) }
            switch event {
            case let .finished(path, _): flight.entry.conclude(.finished(path: path))
            case let .failed(error): flight.entry.conclude(.failed(error))
            case .progress: break
            }
            flight.finish(event)
        }
        // Waiting for another process's lock blocks, so it happens on a thread of its own.
        let thread = Thread { [self] in
            let lock: EntryLock
            do throws(CacheError) {
                lock = try EntryLock(path: paths.lock)
            } catch {
                finish(.failed(error))
                return
            }
            if !lock.tryLock() {
                flight.publish(DownloadProgress(phase: .waiting, received: Self.fileSize(paths.part) ?? 0, total: index.record(for: key)?.size, bytesPerSecond: 0))
                lock.lock()
            }
            let haveData = EntryFile.isRegular(paths.data)
            if haveData && !refresh {
                // Another process finished it while we waited.
                lock.unlock()
                index.touch(key)
                finish(.finished(path: paths.data, alreadyCached: true))
                return
            }
            startTransfer(flight: flight, url: url, paths: paths, lock: lock, revalidate: haveData && refresh, deadline: deadline, headers: headers, finish: finish)
        }
        thread.name = "mediaplay.entry-lock"
        thread.start()
    }

    private func startTransfer(
        flight: InFlight, url: URL, paths: CacheFolder.EntryPaths, lock: EntryLock, revalidate: Bool, deadline: Int? = nil, headers: [String: String] = [:],
        finish: @escaping @Sendable (DownloadEvent) -> Void
    ) {
        var configuration = self.configuration
        configuration.deadline = deadline
        // A deadline is the download's in all: one try, no resumes.
        if deadline != nil {
            configuration.attempts = 1
            configuration.maximumResumes = 0
        }
        let key = url.absoluteString
        let now = clock.wallTime.timeIntervalSince1970
        let makeRecord: @Sendable () -> IndexRecord = { IndexRecord(url: key, name: paths.name, state: .partial, lastAccess: now, updated: now) }
        let previous = index.record(for: key)
        let mode: TransferJob.Mode = revalidate ? .revalidate(etag: previous?.etag, lastModified: previous?.lastModified) : .fetch
        do {
            try index.update(key, makeDefault: makeRecord) { record in
                if !revalidate { record.state = .partial }
                record.error = nil
                record.lastAccess = now
            }
        } catch {
            lock.unlock()
            finish(.failed(.io("cannot update the cache index: \(error)")))
            return
        }

        let index = self.index
        let clock = self.clock
        if !revalidate { flight.entry.setHeld(Self.heldRanges(record: previous, partPath: paths.part)) }
        let job = TransferJob(
            url: url, partPath: paths.part, dataPath: paths.data, mode: mode, configuration: configuration, clock: clock,
            entry: flight.entry,
            publish: { flight.publish($0) },
            recordHeaders: { total, etag, lastModified, contentType in
                _ = try? index.update(key, makeDefault: makeRecord) { record in
                    if !revalidate {
                        record.size = total
                        record.etag = etag
                        record.lastModified = lastModified
                    }
                    record.contentType = contentType ?? record.contentType
                }
            },
            recordRanges: { ranges in
                _ = try? index.update(key, makeDefault: makeRecord) { record in record.ranges = ranges?.description }
            },
            complete: { [weak flight] result in
                _ = flight
                switch result {
                case let .success(path):
                    let size = Self.fileSize(path)
                    _ = try? index.update(key, makeDefault: makeRecord) { record in
                        record.state = .complete
                        record.size = size
                        record.error = nil
                        record.ranges = nil
                        record.lastAccess = clock.wallTime.timeIntervalSince1970
                    }
                    if revalidate { _ = unlink(paths.part) }
                    lock.unlock()
                    finish(.finished(path: path, alreadyCached: false))
                case let .failure(error) where !revalidate && (error == .liveStream || error == .webPage):
                    // Nothing of a live stream or a web page is kept, not even its name.
                    try? index.delete(key)
                    lock.unlock()
                    finish(.failed(error))
                case let .failure(error):
                    _ = try? index.update(key, makeDefault: makeRecord) { record in
                        if revalidate {
                            record.state = .complete  // the old file stays good
                        } else {
                            record.state = error == .cancelled ? .partial : .failed
                            record.error = error == .cancelled ? nil : error.description
                        }
                    }
                    if revalidate { _ = unlink(paths.part) }
                    lock.unlock()
                    finish(.failed(error))
                }
            }
        )
        job.extraHeaders = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if !revalidate, previous?.state != .complete {
            job.resumeValidator = previous?.etag ?? previous?.lastModified
            job.knownTotal = previous?.size
        }
        flight.attach(job)
        transfers.submit(job)
    }
}

/// The callers sharing one download: each has its own stream; all get every event.
final class InFlight: Sendable {
    /// What the download holds, for readers.
    let entry: PartialEntry

    init(entry: PartialEntry) {
        self.entry = entry
    }

    private struct State {
        var latest: DownloadProgress?
        /// The last event (finished or failed), once sent.
        var final: DownloadEvent?
        var job: TransferJob?
        var cancelled = false
    }

    private let state = Mutex(State())
    private let subscribers = Broadcaster<DownloadEvent>(buffering: .bufferingNewest(32))

    /// Events from now on: a late joiner sees where the download is (or how
    /// it ended) at once.
    func events() -> AsyncStream<DownloadEvent> {
        state.withLock { state in
            if let final = state.final { return subscribers.subscribe(replaying: [final]) }
            return subscribers.subscribe(replaying: state.latest.map { [.progress($0)] } ?? [])
        }
    }

    func attach(_ job: TransferJob) {
        let cancelled = state.withLock { state in
            state.job = job
            return state.cancelled
        }
        if cancelled { job.cancelled = true }
    }

    func cancel() {
        let job = state.withLock { state in
            state.cancelled = true
            return state.job
        }
        job?.cancelled = true
    }

    func publish(_ progress: DownloadProgress) {
        state.withLock { state in
            state.latest = progress
            subscribers.send(.progress(progress))
        }
    }

    func finish(_ event: DownloadEvent) {
        state.withLock { state in
            state.final = event
            state.job = nil
            subscribers.send(event)
        }
        subscribers.finish()
    }
}
