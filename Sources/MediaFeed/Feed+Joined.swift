import Foundation
import MediaModel

extension Feed {
    /// Several feeds as one (`play a.mp3 ~/Music list.m3u`): items renumbered
    /// in order, an id met twice made unique with its new position.
    public static func joined(_ feeds: [Feed], title: String) -> Feed {
        var items: [FeedItem] = []
        var taken: Set<String> = []
        for feed in feeds {
            for var item in feed.items {
                item.position = items.count + 1
                if !taken.insert(item.id).inserted {
                    item.id += "-\(item.position)"
                    taken.insert(item.id)
                }
                items.append(item)
            }
        }
        var joined = Feed(title: title, items: items)
        joined.notes = feeds.flatMap(\.notes)
        joined.repairs = feeds.flatMap(\.repairs)
        return joined
    }

    /// A feed of one local file or URL, titled after it.
    public static func single(_ source: MediaSource) -> Feed {
        let name: String
        let kind: MediaKind?
        switch source {
        case let .file(path):
            name = (path as NSString).lastPathComponent
            kind = MediaKind.guess(fromExtension: FolderFeed.pathExtension(path))
        case let .remote(url):
            // A title is shown everywhere: without the URL's password.
            name = url.absoluteString.redactingUserinfo
            kind = MediaKind.guess(fromExtension: url.pathExtension)
        }
        // The kind from the name when it says (a playlist plays audio and
        // video on); else the file's own streams decide when it plays.
        let item = FeedItem(position: 1, id: source.description, title: name, kind: kind, source: source)
        return Feed(title: name, items: [item])
    }
}

extension FeedDecoder {
    /// Whether a local file is a feed or a playlist rather than media: one
    /// whose name says media is media; for the rest, the first bytes decide.
    public static func isFeedFile(_ path: String) -> Bool {
        if MediaKind.guess(fromExtension: FolderFeed.pathExtension(path)) != nil { return false }
        // Never blocking on a FIFO: a regular file only.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        var head = [UInt8](repeating: 0, count: 4096)
        let count = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        if case .unknown = FeedFormat.detect(Array(head[..<count])) { return false }
        return true
    }
}
