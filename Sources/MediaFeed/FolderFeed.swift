import Foundation
import MediaModel

/// A folder of media as a feed: its media files, in every folder below it,
/// in path order (numbers compared as numbers: "2 …" before "10 …"). Other
/// files are ignored. A `cover.jpg` or `folder.jpg` (or .png) is the
/// thumbnail of the files beside it. Symbolic links are followed only when
/// they resolve and stay inside the folder, and a folder met twice (a link
/// loop) is walked once, with a note. A name that is not UTF-8, or a path
/// longer than PATH_MAX, cannot be opened by the player: left out, counted
/// in a note.
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
        // Left out for their names or depth: counted, one note each at the end.
        var notUTF8 = 0
        var firstNotUTF8: String?
        var tooDeep = 0
        // Folders still to walk (depth first, in order).
        var pending: [String] = [root]
        while let folder = pending.popLast() {
            guard let identity = FileIdentity(folder) else {
                let code = errno
                notes.append("cannot read \(relative(folder, to: root)): \(String(cString: strerror(code))); skipped")
                continue
            }
            if !visited.insert(identity).inserted {
                notes.append("\(relative(folder, to: root)) was met twice (a link loop); walked once")
                continue
            }
            guard let entries = Self.entries(in: folder) else {
                notes.append("cannot read \(relative(folder, to: root)); skipped")
                continue
            }
            // (Only short names are lowercased: a folder has hundreds.)
            let cover = entries.first { $0.name.utf8.count <= 11 && coverNames.contains($0.name.lowercased()) }.map { folder + "/" + $0.name }
            var subfolders: [String] = []
            for (name, entryType, isUTF8) in entries where !name.hasPrefix(".") {
                let child = folder + "/" + name
                let kind = MediaKind.guess(fromExtension: Self.pathExtension(name))
                let isMediaName = kind != nil
                if !isUTF8 {
                    // A path is a String, which is Unicode: these bytes cannot be
                    // carried to the player, so the file would list but not play.
                    if entryType == UInt8(DT_DIR) || (entryType == UInt8(DT_REG) && isMediaName) {
                        notUTF8 += 1
                        firstNotUTF8 = firstNotUTF8 ?? relative(child, to: root)
                    }
                    continue
                }
                if child.utf8.count >= Int(PATH_MAX) {
                    // No call opens a path this long (ENAMETOOLONG).
                    if entryType == UInt8(DT_DIR) || entryType == UInt8(DT_LNK) || entryType == UInt8(DT_UNKNOWN) || isMediaName { tooDeep += 1 }
                    continue
                }
                var isFolder = entryType == UInt8(DT_DIR)
                var isFile = entryType == UInt8(DT_REG)
                if entryType == UInt8(DT_LNK) || entryType == UInt8(DT_UNKNOWN) {
                    var info = stat()
                    guard lstat(child, &info) == 0 else { continue }
                    if info.st_mode & S_IFMT == S_IFLNK {
                        // Followed only when it resolves, and stays inside the folder.
                        guard let target = realPath(child) else {
                            let code = errno
                            notes.append(unresolvedLinkNote(relative(child, to: root), errno: code))
                            continue
                        }
                        guard target == resolvedRoot || target.hasPrefix(resolvedRoot + "/") else {
                            notes.append("\(relative(child, to: root)) links outside the folder; not followed")
                            continue
                        }
                        guard stat(child, &info) == 0 else { continue }
                    }
                    isFolder = info.st_mode & S_IFMT == S_IFDIR
                    isFile = info.st_mode & S_IFMT == S_IFREG
                }
                if isFolder {
                    subfolders.append(child)
                } else if isFile, let kind {
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
            pending.append(contentsOf: subfolders)
        }
        if notUTF8 > 0 {
            let example = firstNotUTF8 ?? "?"
            notes.append(notUTF8 == 1
                ? "1 file or folder is left out: its name is not UTF-8 (\(example)), which mediaplay cannot open; rename it"
                : "\(notUTF8) files or folders are left out: their names are not UTF-8 (the first: \(example)), which mediaplay cannot open; rename them")
        }
        if tooDeep > 0 {
            let limit = "the system's path limit (\(Int(PATH_MAX)) bytes)"
            notes.append(tooDeep == 1
                ? "1 file or folder is left out: it lies deeper than \(limit); move it nearer the top"
                : "\(tooDeep) files or folders are left out: they lie deeper than \(limit); move them nearer the top")
        }
        // Path order across folders (a folder's files and its subfolders
        // interleave as their names sort), each file's key made once.
        let keys = files.map { SortKey(relative($0.path, to: root)) }
        let order = files.indices.sorted { keys[$0] < keys[$1] }
        files = order.map { files[$0] }
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

    /// The names in a folder (not "." and ".."), read with readdir: for a
    /// folder of thousands, FileManager's listing cost a tenth of `list`.
    /// With each name, its type when the folder says it (DT_REG, DT_DIR,
    /// DT_LNK: no stat needed), else DT_UNKNOWN, and whether the name is
    /// UTF-8 (else it is decoded with U+FFFD, and a link's or an unknown
    /// type is the followed one's, asked by the name's own bytes).
    static func entries(in folder: String) -> [(name: String, type: UInt8, isUTF8: Bool)]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var entries: [(name: String, type: UInt8, isUTF8: Bool)] = []
        while let entry = readdir(directory) {
            let (name, isUTF8) = withUnsafeBytes(of: entry.pointee.d_name) { raw -> (String, Bool) in
                let bytes = raw.prefix { $0 != 0 }
                if let name = String(validating: bytes, as: UTF8.self) { return (name, true) }
                return (String(decoding: bytes, as: UTF8.self), false)
            }
            if name == "." || name == ".." { continue }
            var type = entry.pointee.d_type
            if !isUTF8, type == UInt8(DT_LNK) || type == UInt8(DT_UNKNOWN) {
                var info = stat()
                let found = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    fstatat(dirfd(directory), raw.baseAddress!.assumingMemoryBound(to: CChar.self), &info, 0) == 0
                }
                let mode = info.st_mode & S_IFMT
                type = !found ? UInt8(DT_UNKNOWN) : mode == S_IFDIR ? UInt8(DT_DIR) : mode == S_IFREG ? UInt8(DT_REG) : UInt8(DT_UNKNOWN)
            }
            entries.append((name, type, isUTF8))
        }
        return entries
    }

    /// Why a link that does not resolve is not followed: its own reason,
    /// not "outside the folder".
    private static func unresolvedLinkNote(_ name: String, errno code: Int32) -> String {
        switch code {
        case ENOENT, ENOTDIR: return "\(name) is a broken link (what it names does not exist); not followed"
        case ELOOP: return "\(name) is a link loop (following it never reaches a file or folder); not followed"
        default: return "\(name) is a link that cannot be followed (\(String(cString: strerror(code)))); not followed"
        }
    }

    /// A path's extension ("" when none): its last component's text after
    /// the last dot. Not NSString's: it trapped on a line the feed fuzzer
    /// made (trailing slashes after invalid UTF-8), and it is slower.
    static func pathExtension(_ path: String) -> String {
        guard let name = path.split(separator: "/", omittingEmptySubsequences: true).last,
              let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// A path's sort key, made once: its bytes lowercased (ASCII), compared
    /// with runs of digits as numbers ("Track 2" before "Track 10"), then
    /// the path itself.
    struct SortKey: Comparable {
        let folded: [UInt8]
        let path: String

        init(_ path: String) {
            self.path = path
            folded = path.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }

        static func < (a: SortKey, b: SortKey) -> Bool {
            let x = a.folded, y = b.folded
            var i = 0, j = 0
            func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
            while i < x.count, j < y.count {
                if isDigit(x[i]), isDigit(y[j]) {
                    // Leading zeros skipped; then the longer run is larger, else byte order.
                    while i < x.count - 1, x[i] == 0x30, isDigit(x[i + 1]) { i += 1 }
                    while j < y.count - 1, y[j] == 0x30, isDigit(y[j + 1]) { j += 1 }
                    var endX = i, endY = j
                    while endX < x.count, isDigit(x[endX]) { endX += 1 }
                    while endY < y.count, isDigit(y[endY]) { endY += 1 }
                    if endX - i != endY - j { return endX - i < endY - j }
                    while i < endX {
                        if x[i] != y[j] { return x[i] < y[j] }
                        i += 1
                        j += 1
                    }
                    continue
                }
                if x[i] != y[j] { return x[i] < y[j] }
                i += 1
                j += 1
            }
            if x.count - i != y.count - j { return x.count - i < y.count - j }
            return a.path < b.path
        }

        static func == (a: SortKey, b: SortKey) -> Bool { a.path == b.path }
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
