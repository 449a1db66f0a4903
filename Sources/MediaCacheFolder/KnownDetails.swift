import Foundation
import MediaFeed

#if canImport(Glibc)
import Glibc
#endif

/// Duration, tags and format of the items' files as kept in the index,
/// keyed by URL (`file://` for a local item) and valid while the file keeps
/// its size and modification time. Files with nothing valid kept are named,
/// for a probe (MediaSession's ItemDetails probes them with libavformat).
public struct KnownDetails: Sendable {
    /// A file to probe: which item, the key its details go under, and the
    /// file's path, size and modification time.
    public struct Unprobed: Sendable {
        public var index: Int
        public var key: String
        public var path: String
        public var size: Int64
        public var time: Double
    }

    /// One entry per item: nil for items with no audio or video file at hand
    /// (or not probed yet).
    public var details: [MediaDetails?]
    public var unprobed: [Unprobed]
    /// Files probed, with sound, whose loudness was not measured yet.
    public var unmeasured: [Unprobed]

    /// One item reads its own row; more read the whole folder once.
    public init(_ items: [FeedItem], folder: CacheFolder?) {
        if items.count > 1 {
            self.init(items, snapshot: try? folder?.snapshot())
        } else {
            self.init(items, stored: { folder?.storedDetails(for: $0) }, cachedFile: { folder?.cachedFile(for: $0) })
        }
    }

    public init(_ items: [FeedItem], snapshot: CacheSnapshot?) {
        self.init(items, stored: { snapshot?.details[$0] }, cachedFile: { snapshot?.cachedFile(for: $0) })
    }

    private init(_ items: [FeedItem], stored: (String) -> StoredDetails?, cachedFile: (URL) -> String?) {
        var unprobed: [Unprobed] = []
        var unmeasured: [Unprobed] = []
        details = items.indices.map { index in
            let item = items[index]
            guard item.kind == .audio || item.kind == .video, let (key, path) = Self.file(of: item, cachedFile: cachedFile) else { return nil }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            let size = Int64(info.st_size)
            let time = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            // A row from before tracks were probed is probed again (what was measured stays).
            // (A file that probed as nothing stays so.)
            if let known = stored(key), known.fileSize == size, known.fileTime == time, known.details.tracks != nil || known.details == MediaDetails() {
                if known.details.sampleRate != nil, !known.details.measured {
                    unmeasured.append(Unprobed(index: index, key: key, path: path, size: size, time: time))
                }
                var said = known.details
                said.tracks = nil
                return said == MediaDetails() ? nil : known.details  // probed, and it said nothing
            }
            unprobed.append(Unprobed(index: index, key: key, path: path, size: size, time: time))
            return nil
        }
        self.unprobed = unprobed
        self.unmeasured = unmeasured
    }

    /// A local file's key: its `file://` URL, as `URL(fileURLWithPath:)`
    /// writes it for a file (the path's bytes outside RFC 3986's path
    /// characters percent-encoded), made byte by byte: Foundation's
    /// encoding cost a tenth of listing a folder of 500 files.
    static func fileKey(_ path: String) -> String {
        var bytes: [UInt8] = Array("file://".utf8)
        bytes.reserveCapacity(path.utf8.count + 16)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in path.utf8 {
            if pathAllowed[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Foundation's `urlPathAllowed` and ";", as a table of the 256 bytes.
    private static let pathAllowed: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8 { table[Int(byte)] = true }
        return table
    }()

    /// The key its details are kept under, and the file to probe.
    private static func file(of item: FeedItem, cachedFile: (URL) -> String?) -> (key: String, path: String)? {
        switch item.source {
        case let .file(path)?: return (fileKey(path), path)
        case let .remote(url)?: return cachedFile(url).map { (url.absoluteString, $0) }
        case nil: return nil
        }
    }
}
