import Foundation
import Synchronization
import MediaCacheFolder
import MediaEngine
import MediaFeed
import MediaModel

/// Measures the loudness of items' files once: those at hand (local, or
/// cached) with sound and not measured yet. Each result is kept in the
/// cache's index with the file's probed details as soon as it is known, so
/// an interrupted run loses at most the file it was on. Blocks: run it on a
/// thread of its own (the `measure` command, or its background process).
public enum LoudnessMeasuring {
    /// What a run reports as it goes.
    public enum Report {
        /// Measuring the `number`th of `count` files: item's.
        case started(FeedItem, number: Int, count: Int)
        /// Seconds of its media measured so far.
        case progress(Double)
        /// Its result (nil: the file has no sound to measure, or failed).
        case finished(FeedItem, Loudness?, failure: String?)
    }

    /// The files `run` would measure, by item.
    public static func unmeasured(_ items: [FeedItem], folder: CacheFolder) -> [(item: FeedItem, file: KnownDetails.Unprobed, details: MediaDetails)] {
        // Files never probed are probed first (and kept), so every file is known.
        _ = ItemDetails.lookup(items, folder: folder)
        let known = KnownDetails(items, folder: folder)
        return known.unmeasured.compactMap { file in known.details[file.index].map { (items[file.index], file, $0) } }
    }

    /// Measures each file; `report` hears every step, and stops the run by
    /// returning false. Returns how many files were measured.
    @discardableResult
    public static func run(_ items: [FeedItem], folder: CacheFolder, report: (Report) -> Bool) -> Int {
        let files = unmeasured(items, folder: folder)
        var done = 0
        for (number, (item, file, details)) in files.enumerated() {
            guard report(.started(item, number: number + 1, count: files.count)) else { break }
            var stopped = false
            var measuredDetails = details
            var failure: String?
            do {
                measuredDetails.loudness = try LoudnessMeter.measure(path: file.path) { seconds in
                    if !report(.progress(seconds)) { stopped = true }
                    return !stopped
                }
            } catch {
                failure = error.message
            }
            if stopped { break }
            measuredDetails.measured = true
            folder.store(StoredDetails(details: measuredDetails, fileSize: file.size, fileTime: file.time), for: file.key)
            done += 1
            guard report(.finished(item, measuredDetails.loudness, failure: failure)) else { break }
        }
        return done
    }

    /// An item's measured loudness as the cache's index at `directory`
    /// keeps it, for a player's start (nil: not measured, or no index). The
    /// index is opened once, on the first start that finds it.
    public static func lookup(cacheDirectory: String?) -> @Sendable (FeedItem) -> Loudness? {
        guard let cacheDirectory else { return { _ in nil } }
        let opened = Mutex<CacheFolder?>(nil)
        return { item in
            let folder = opened.withLock { folder -> CacheFolder? in
                if folder == nil, FileManager.default.fileExists(atPath: cacheDirectory + "/index.sqlite") {
                    folder = try? CacheFolder.forViewing(directory: cacheDirectory)
                }
                return folder
            }
            return folder.flatMap { KnownDetails([item], folder: $0).details.first??.loudness }
        }
    }

    /// The same in a cache folder already open (the background player's).
    public static func lookup(folder: CacheFolder) -> @Sendable (FeedItem) -> Loudness? {
        { item in KnownDetails([item], folder: folder).details.first??.loudness }
    }
}
