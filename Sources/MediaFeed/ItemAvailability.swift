import Foundation
import MediaModel

/// A local media file mediaplay may open: a regular file it can read (links
/// followed: it is the user's own path), never a folder, or a FIFO or a
/// device that would block whoever opens it. The one check `list`, browse,
/// the cache and the session share.
public enum LocalFile {
    public static func isReadable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && isReadable(path, info)
    }

    /// A regular file we may read, from its stat: a file of ours with its
    /// owner's read bit needs no access(2) (the owner's class is those
    /// bits, ACL or not), which halves the calls of a folder's list.
    public static func isReadable(_ path: String, _ info: stat) -> Bool {
        guard info.st_mode & S_IFMT == S_IFREG else { return false }
        if info.st_uid == geteuid(), info.st_mode & S_IRUSR != 0 { return true }
        return access(path, R_OK) == 0
    }
}

extension FeedItem {
    /// Whether this item's media is at hand, and why not when it is not.
    /// `remote` tells what the cache holds of a URL (`list` reads the cache
    /// index; browse asks the cache for a finished file); `isReadable` may
    /// be a remembered answer of `LocalFile.isReadable` (browse draws often).
    public func availability(
        isReadable: (String) -> Bool = LocalFile.isReadable, remote: (URL) -> Availability
    ) -> (Availability, detail: String?) {
        if let reason = invalidReason { return (.invalid, reason) }
        switch source {
        case let .file(path)?:
            return isReadable(path) ? (.local, nil) : (.missing, "no readable file at \(path)")
        case let .remote(url)?:
            return (remote(url), nil)
        case nil:
            return (.textOnly, nil)
        }
    }
}
