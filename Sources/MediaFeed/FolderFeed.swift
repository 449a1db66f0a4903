import Foundation
import MediaModel

/// A folder of media as a feed: its media files, in every folder below it,
/// in path order (numbers compared as numbers: "2 …" before "10 …"). Other
/// files are ignored. A `cover.jpg` or `folder.jpg` (or .png) is the
/// thumbnail of the files beside it. Symbolic links are followed only when
/// they stay inside the folder, and a folder met twice (a link loop) is
/// walked once, with a note.
public enum FolderFeed {
    /// Far beyond a music collection; a walk stops there, with a note.
    public static let maximumFiles = FeedDecoder.maximumItems

    private static let coverNames = ["cover.jpg", "cover.jpeg", "cover.png", "folder.jpg", "folder.jpeg", "folder.png", "front.jpg", "front.png"]

    public static func read(_ path: String) -> Feed {
        let root = (path as NSString).standardizingPath
        let resolvedRoot = realPath(root) ?? root
        var notes: [String] = []
        var files: [(path: String, kind: MediaKind, cover: String?)] = []
        var visited: Set<FileIdentity> = []
        // Folders still to walk (depth first, in order).
        var pending: [String] = [root]
        while let folder = pending.popLast() {
            guard let identity = FileIdentity(folder) else { continue }
            if !visited.insert(identity).inserted {
                notes.append("\(relative(folder, to: root)) was met twice (a link loop); walked once")
                continue
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
                notes.append("cannot read \(relative(folder, to: root)); skipped")
                continue
            }
            let cover = names.first { coverNames.contains($0.lowercased()) }.map { (folder as NSString).appendingPathComponent($0) }
            var subfolders: [String] = []
            for name in names.sorted(by: naturalOrder) where !name.hasPrefix(".") {
                let child = (folder as NSString).appendingPathComponent(name)
                var info = stat()
                guard lstat(child, &info) == 0 else { continue }
                var type = info.st_mode & S_IFMT
                if type == S_IFLNK {
                    // Followed only when it stays inside the folder.
                    guard let target = realPath(child), target == resolvedRoot || target.hasPrefix(resolvedRoot + "/") else {
                        notes.append("\(relative(child, to: root)) links outside the folder; not followed")
                        continue
                    }
                    guard stat(child, &info) == 0 else { continue }
                    type = info.st_mode & S_IFMT
                }
                if type == S_IFDIR {
                    subfolders.append(child)
                } else if type == S_IFREG, let kind = MediaKind.guess(fromExtension: (name as NSString).pathExtension) {
                    // The cover picture itself is not an item.
                    if child == cover { continue }
                    files.append((child, kind, cover))
                    if files.count >= maximumFiles {
                        notes.append("more than \(maximumFiles) media files; the rest are left out")
                        pending = []
                        break
                    }
                }
            }
            // Depth first in name order: the stack takes them reversed.
            pending.append(contentsOf: subfolders.reversed())
        }
        // Path order across folders: a folder's files and its subfolders
        // interleave as their names sort.
        files.sort { naturalOrder(relative($0.path, to: root), relative($1.path, to: root)) }
        let drafts = files.indices.map { index -> FeedDraft in
            var draft = FeedDraft(position: index + 1, location: SourcePosition(line: 1, column: 1))
            draft.source = .file(files[index].path)
            draft.kind = files[index].kind
            if files[index].kind != .image { draft.thumbnail = files[index].cover.map { .file($0) } }
            return draft
        }
        var feed = Feed(title: (root as NSString).lastPathComponent, items: FeedDecoder.items(from: drafts))
        feed.notes = notes
        return feed
    }

    /// "Track 2" before "Track 10": runs of digits compared as numbers,
    /// the rest case-insensitively, then as bytes.
    static func naturalOrder(_ a: String, _ b: String) -> Bool {
        var left = a.lowercased().unicodeScalars[...], right = b.lowercased().unicodeScalars[...]
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x30 && scalar.value <= 0x39 }
        while let l = left.first, let r = right.first {
            if isDigit(l), isDigit(r) {
                let leftDigits = left.prefix(while: isDigit), rightDigits = right.prefix(while: isDigit)
                let leftNumber = String(String.UnicodeScalarView(leftDigits.drop { $0 == "0" }))
                let rightNumber = String(String.UnicodeScalarView(rightDigits.drop { $0 == "0" }))
                if leftNumber.count != rightNumber.count { return leftNumber.count < rightNumber.count }
                if leftNumber != rightNumber { return leftNumber < rightNumber }
                left = left.dropFirst(leftDigits.count)
                right = right.dropFirst(rightDigits.count)
                continue
            }
            if l != r { return l.value < r.value }
            left = left.dropFirst()
            right = right.dropFirst()
        }
        if left.isEmpty != right.isEmpty { return left.isEmpty }
        return a < b
    }

    private static func relative(_ path: String, to root: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A folder's device and inode: the same folder reached twice is one.
    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }
}
