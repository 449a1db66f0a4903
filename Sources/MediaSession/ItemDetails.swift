import Foundation
import MediaCache
import MediaEngine
import MediaFeed

/// Duration, tags and format of the items' files: probed once per file with
/// libavformat and kept in the cache's index, keyed by URL (`file://` for a
/// local item) and checked against the file's size and modification time,
/// so a replaced file is probed again and a removed entry forgets them.
public enum ItemDetails {
    /// One entry per item: nil for items with no audio or video file at hand.
    public static func lookup(_ items: [FeedItem], cache: MediaCache?) -> [MediaDetails?] {
        // A whole list reads every kept row once; one item reads its own.
        let all = items.count > 1 ? cache?.storedDetails() ?? [:] : [:]
        let stored: (String) -> StoredDetails? = items.count > 1 ? { all[$0] } : { cache?.storedDetails(for: $0) }
        return items.map { item in
            guard item.kind == .audio || item.kind == .video, let (key, path) = file(of: item, cache: cache) else { return nil }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            let size = Int64(info.st_size)
            let time = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            if let known = stored(key), known.fileSize == size, known.fileTime == time { return known.details }
            guard let details = try? MediaProbe.details(path: path) else { return nil }
            cache?.store(StoredDetails(details: details, fileSize: size, fileTime: time), for: key)
            return details
        }
    }

    /// The key its details are kept under, and the file to probe.
    private static func file(of item: FeedItem, cache: MediaCache?) -> (key: String, path: String)? {
        switch item.source {
        case let .file(path)?: return (URL(fileURLWithPath: path).absoluteString, path)
        case let .remote(url)?: return cache?.cachedFile(for: url).map { (url.absoluteString, $0) }
        case nil: return nil
        }
    }
}
