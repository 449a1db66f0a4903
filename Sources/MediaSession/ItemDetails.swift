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
        for file in known.unprobed {
            // A file that does not probe is kept as saying nothing, so it is
            // not probed again (and a list of it stays quick) until it changes.
            let probed = try? MediaProbe.details(path: file.path)
            folder?.store(StoredDetails(details: probed ?? MediaDetails(), fileSize: file.size, fileTime: file.time), for: file.key)
            details[file.index] = probed
        }
        return details
    }
}
