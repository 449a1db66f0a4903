import Foundation
import MediaCache
import MediaCacheFolder
import MediaEngine
import MediaFeed

/// Duration, tags and format of the items' files: probed once per file with
/// libavformat and kept in the cache's index (KnownDetails), so a replaced
/// file is probed again and a removed entry forgets them.
public enum ItemDetails {
    /// One entry per item: nil for items with no audio or video file at hand.
    public static func lookup(_ items: [FeedItem], cache: MediaCache?) -> [MediaDetails?] {
        lookup(items, folder: cache?.folder)
    }

    public static func lookup(_ items: [FeedItem], folder: CacheFolder?) -> [MediaDetails?] {
        probe(KnownDetails(items, folder: folder), into: folder)
    }

    /// For a whole list, from the cache as read once.
    public static func lookup(_ items: [FeedItem], snapshot: CacheSnapshot?) -> [MediaDetails?] {
        probe(KnownDetails(items, snapshot: snapshot), into: snapshot?.folder)
    }

    private static func probe(_ known: KnownDetails, into folder: CacheFolder?) -> [MediaDetails?] {
        var details = known.details
        let files = known.unprobed
        guard !files.isEmpty else { return details }
        // Every core at once (a folder of music is hundreds of files; each
        // probe is a few reads and a little decoding), on threads of GCD's,
        // never Swift's pool: this is a command's own blocking work.
        let results = UnsafeMutableBufferPointer<MediaDetails?>.allocate(capacity: files.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        let slots = UncheckedSlots(results)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            slots.buffer[index] = try? MediaProbe.details(path: files[index].path)
        }
        // A file that does not probe is kept as saying nothing, so it is not
        // probed again (and a list of it stays quick) until it changes.
        var stored: [(url: String, stored: StoredDetails)] = []
        for (index, file) in files.enumerated() {
            details[file.index] = results[index]
            stored.append((file.key, StoredDetails(details: results[index] ?? MediaDetails(), fileSize: file.size, fileTime: file.time)))
        }
        folder?.store(stored)
        return details
    }
}

/// Result slots written by `concurrentPerform`'s iterations, each its own.
private struct UncheckedSlots: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<MediaDetails?>
    init(_ buffer: UnsafeMutableBufferPointer<MediaDetails?>) { self.buffer = buffer }
}
