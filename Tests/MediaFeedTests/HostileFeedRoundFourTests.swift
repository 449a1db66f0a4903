import Foundation
import MediaModel
import Testing
@testable import MediaFeed

/// The fourth probe's feeds and folders (issue #41): playlists past the
/// limit, names that are not UTF-8, folders nested past PATH_MAX, links
/// that do not resolve, and feeds in UTF-16 and UTF-32.
@Suite struct HostileFeedRoundFourTests {
    /// A folder made with the C calls, so names may be any bytes and paths
    /// any depth; removed by the same calls (FileManager can do neither).
    final class Scratch {
        let path: String

        init() throws {
            var template = Array((NSTemporaryDirectory() + "/mediaplay-round4-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
            path = (String(cString: made) as NSString).standardizingPath
        }

        deinit {
            Self.remove(AT_FDCWD, Array(path.utf8CString))
        }

        /// A file named by raw bytes inside `folder` (a descriptor).
        static func touch(_ folder: Int32, _ name: [UInt8]) {
            let fd = openat(folder, name.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
            if fd >= 0 { close(fd) }
        }

        /// A tree removed by descriptors: any name, any depth.
        private static func remove(_ parent: Int32, _ name: [CChar]) {
            if unlinkat(parent, name, 0) == 0 { return }
            let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
            guard fd >= 0, let directory = fdopendir(fd) else { return }
            var names: [[CChar]] = []
            while let entry = readdir(directory) {
                let child = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }).map { CChar(bitPattern: $0) } }
                if child != [46] && child != [46, 46] { names.append(child + [0]) }
            }
            for child in names { remove(dirfd(directory), child) }
            closedir(directory)
            unlinkat(parent, name, AT_REMOVEDIR)
        }
    }

    static func error(_ bytes: [UInt8]) -> FeedError? {
        do {
            _ = try FeedDecoder.decode(bytes, origin: .unknown)
            return nil
        } catch {
            return error
        }
    }

    // MARK: (a) playlists past the limit

    /// An M3U and a PLS one entry past the limit are refused alike, naming
    /// it (the PLS was cut to 250,000 without a word).
    @Test func bothPlaylistFormatsRefuseTheEntryPastTheLimit() throws {
        let count = FeedDecoder.maximumItems + 1
        var m3u = "#EXTM3U\n"
        var pls = "[playlist]\n"
        m3u.reserveCapacity(count * 20)
        pls.reserveCapacity(count * 24)
        for number in 1...count {
            m3u += "http://e.org/\(number).mp3\n"
            pls += "File\(number)=http://e.org/\(number).mp3\n"
        }
        let expected = "more than 250000 entries; mediaplay reads playlists of at most 250000 entries (split the playlist)"
        let m3uError = Self.error(Array(m3u.utf8))
        let plsError = Self.error(Array(pls.utf8))
        #expect(m3uError?.message == expected)
        #expect(plsError?.message == expected)
        #expect(m3uError?.position.line == count + 1 && plsError?.position.line == count + 1, "the line of the entry past the limit")
    }

    /// A PLS entry numbered past the limit is an entry like any other (it
    /// was dropped without a word).
    @Test func aPLSEntryNumberedHighIsKept() throws {
        let feed = try FeedDecoder.decode(Array("[playlist]\nFile1=http://e.org/a.mp3\nFile999999=http://e.org/b.mp3\nTitle999999=Late\n".utf8))
        #expect(feed.items.map(\.title) == ["a", "Late"])
    }

    // MARK: (b) names that are not UTF-8

    /// A file whose name is not UTF-8 cannot be carried in a path String:
    /// it is left out with a note that counts it (it listed, then played
    /// as "file not found"); a folder so named is left out too.
    @Test func aNameThatIsNotUTF8IsLeftOutWithANote() throws {
        let scratch = try Scratch()
        let root = open(scratch.path, O_RDONLY | O_DIRECTORY)
        defer { close(root) }
        Scratch.touch(root, Array("good.mp3".utf8))
        Scratch.touch(root, Array("bad".utf8) + [0xFF] + Array(".mp3".utf8))
        Scratch.touch(root, Array("notes".utf8) + [0xFE] + Array(".txt".utf8))  // not media: not counted
        mkdirat(root, [CChar(bitPattern: 0xC3), 0x28, 0], 0o755)  // a broken two-byte sequence
        let folder = openat(root, [CChar(bitPattern: 0xC3), 0x28, 0], O_RDONLY | O_DIRECTORY)
        Scratch.touch(folder, Array("inside.mp3".utf8))
        close(folder)

        let feed = FolderFeed.read(scratch.path)
        #expect(feed.items.map(\.source) == [.file(scratch.path + "/good.mp3")])
        #expect(feed.notes.count == 1, "\(feed.notes)")
        #expect(feed.notes.first?.hasPrefix("2 files or folders are left out: their names are not UTF-8 (the first: ") == true, "\(feed.notes)")
        #expect(feed.notes.first?.hasSuffix("which mediaplay cannot open; rename them") == true, "\(feed.notes)")
    }

    // MARK: (c) nesting past PATH_MAX

    /// Folders nested past PATH_MAX: the files above are listed, and a note
    /// says what lies too deep (it was left out without a word).
    @Test func nestingPastPathMaxIsSaidInANote() throws {
        let scratch = try Scratch()
        var folder = open(scratch.path, O_RDONLY | O_DIRECTORY)
        Scratch.touch(folder, Array("top.mp3".utf8))
        let name = [CChar](repeating: 0x64, count: 200) + [0]  // 200 × "d"
        for depth in 1...25 {
            mkdirat(folder, name, 0o755)
            let next = openat(folder, name, O_RDONLY | O_DIRECTORY)
            close(folder)
            folder = next
            Scratch.touch(folder, Array("at \(depth).mp3".utf8))
        }
        close(folder)

        let feed = FolderFeed.read(scratch.path)
        let shallow = feed.items.count
        #expect(shallow > 1 && shallow < 25, "the files above the limit listed: \(shallow)")
        #expect(feed.items.allSatisfy { $0.source.map { $0.description.utf8.count < Int(PATH_MAX) } ?? false })
        #expect(feed.notes == ["1 file or folder is left out: it lies deeper than the system's path limit (4096 bytes); move it nearer the top"], "\(feed.notes)")
    }

    // MARK: (d) links that do not resolve

    /// A broken link and a link loop each say what they are; only a link
    /// that resolves outside is "outside the folder".
    @Test func brokenLinksAndLinkLoopsAreCalledSo() throws {
        let scratch = try Scratch()
        let root = scratch.path
        let folder = open(root, O_RDONLY | O_DIRECTORY)
        Scratch.touch(folder, Array("song.mp3".utf8))
        close(folder)
        symlink("nowhere.mp3", root + "/dead.mp3")
        symlink("loop-b", root + "/loop-a")
        symlink("loop-a", root + "/loop-b")
        symlink("/etc", root + "/etc")

        let feed = FolderFeed.read(root)
        #expect(feed.items.count == 1)
        #expect(Set(feed.notes) == [
            "dead.mp3 is a broken link (what it names does not exist); not followed",
            "loop-a is a link loop (following it never reaches a file or folder); not followed",
            "loop-b is a link loop (following it never reaches a file or folder); not followed",
            "etc links outside the folder; not followed",
        ], "\(feed.notes)")
    }

    // MARK: (i) UTF-16 and UTF-32

    static let rss = """
    <?xml version="1.0" encoding="ENCODING"?>
    <rss version="2.0"><channel><title>Café ☕ 𝄞</title>
    <item><title>Ünïcode 𝄞</title><enclosure url="https://e.org/a.mp3" type="audio/mpeg"/></item>
    </channel></rss>
    """

    /// The text in `encoding`, with or without its byte order mark.
    static func encoded(_ text: String, _ encoding: String.Encoding, mark: Bool) -> [UInt8] {
        let units: [UInt8]
        switch encoding {
        case .utf16LittleEndian: units = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case .utf16BigEndian: units = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .utf32LittleEndian: units = text.unicodeScalars.flatMap { scalar in (0..<4).map { UInt8((scalar.value >> (8 * $0)) & 0xFF) } }
        default: units = text.unicodeScalars.flatMap { scalar in (0..<4).reversed().map { UInt8((scalar.value >> (8 * $0)) & 0xFF) } }
        }
        return (mark ? encoded("\u{FEFF}", encoding, mark: false) : []) + units
    }

    static let encodings: [(String.Encoding, String)] = [
        (.utf16LittleEndian, "UTF-16"), (.utf16BigEndian, "UTF-16"), (.utf32LittleEndian, "UTF-32"), (.utf32BigEndian, "UTF-32"),
    ]

    /// RSS in UTF-16 or UTF-32, with a byte order mark and without, whatever
    /// its declaration says: read as the UTF-8 one is ("not a feed").
    @Test(arguments: [true, false])
    func anXMLFeedInUTF16OrUTF32Reads(mark: Bool) throws {
        for (encoding, declared) in Self.encodings {
            let text = Self.rss.replacingOccurrences(of: "ENCODING", with: declared)
            let feed = try FeedDecoder.decode(Self.encoded(text, encoding, mark: mark))
            #expect(feed.title == "Café ☕ 𝄞", "\(encoding) mark: \(mark)")
            #expect(feed.items.map(\.title) == ["Ünïcode 𝄞"], "\(encoding) mark: \(mark)")
            #expect(feed.items.first?.source == .remote(URL(string: "https://e.org/a.mp3")!))
        }
    }

    /// JSON, an M3U and an OPML list too.
    @Test func jsonPlaylistsAndOPMLInUTF16Read() throws {
        let json = #"[{"type": "audio", "title": "Ünï 𝄞", "url": "https://e.org/a.mp3"}]"#
        for (encoding, _) in Self.encodings {
            for mark in [true, false] {
                #expect(try FeedDecoder.decode(Self.encoded(json, encoding, mark: mark)).items.map(\.title) == ["Ünï 𝄞"], "\(encoding) mark: \(mark)")
            }
        }
        let m3u = "#EXTM3U\n#EXTINF:3,Ünï 𝄞\nhttps://e.org/a.mp3\n"
        #expect(try FeedDecoder.decode(Self.encoded(m3u, .utf16LittleEndian, mark: true)).items.map(\.title) == ["Ünï 𝄞"])
        let opml = #"<?xml version="1.0" encoding="UTF-16"?><opml><body><outline text="Ünï" xmlUrl="https://e.org/feed"/></body></opml>"#
        let subscriptions = try OPMLReader.subscriptions(Self.encoded(opml, .utf16LittleEndian, mark: true))
        #expect(subscriptions == [OPMLReader.Subscription(title: "Ünï", url: "https://e.org/feed")])
    }

    /// Broken UTF-16 (a lone surrogate, an odd last byte) reads with U+FFFD
    /// in place, never a crash.
    @Test func brokenUTF16BecomesReplacementCharacters() throws {
        var bytes = Self.encoded(#"[{"type": "audio", "title": "AB", "url": "https://e.org/a.mp3"}]"#, .utf16LittleEndian, mark: true)
        // "A" becomes a lone high surrogate.
        let a = bytes.indices.first { bytes[$0] == UInt8(ascii: "A") && bytes[$0 + 1] == 0 }!
        bytes[a] = 0x00
        bytes[a + 1] = 0xD8
        let feed = try FeedDecoder.decode(bytes)
        #expect(feed.items.map(\.title) == ["\u{FFFD}B"])
        #expect(try UnicodeText.utf8([0xFF, 0xFE, 0x41, 0x00, 0x42]).bytes == Array("A\u{FFFD}".utf8))
    }

    // MARK: (j) EBCDIC

    /// Text in EBCDIC (code page 037), for the characters a small feed uses.
    static func ebcdic(_ text: String) -> [UInt8] {
        var table: [Character: UInt8] = [" ": 0x40, ".": 0x4B, "<": 0x4C, "/": 0x61, "?": 0x6F, ">": 0x6E, ":": 0x7A, "=": 0x7E, "\"": 0x7F, "\n": 0x25]
        for (letters, first) in [("abcdefghi", 0x81), ("jklmnopqr", 0x91), ("stuvwxyz", 0xA2), ("ABCDEFGHI", 0xC1), ("JKLMNOPQR", 0xD1), ("STUVWXYZ", 0xE2), ("0123456789", 0xF0)] {
            for (offset, letter) in letters.enumerated() { table[letter] = UInt8(first + offset) }
        }
        return text.map { table[$0]! }
    }

    /// An RSS feed in EBCDIC is XML (libxml2 reads it), not "not a feed".
    @Test func anEBCDICFeedIsXML() throws {
        let text = """
        <?xml version="1.0" encoding="IBM037"?>
        <rss version="2.0"><channel><title>Mainframe</title>
        <item><title>Tape</title><enclosure url="https://e.org/tape.mp3" type="audio/mpeg"/></item>
        </channel></rss>
        """
        let feed = try FeedDecoder.decode(Self.ebcdic(text))
        #expect(feed.title == "Mainframe" && feed.items.map(\.title) == ["Tape"])
    }

    /// UTF-8 is left as it is, even when a first "<" could start UTF-16.
    @Test func aUTF8FeedIsLeftAsItIs() throws {
        for sample in ["<rss/>", "<\u{0}", "[1]", ""] {
            let text = try UnicodeText.utf8(Array(sample.utf8))
            #expect(text.transcodedFrom == nil && text.bytes == Array(sample.utf8), "\(sample)")
        }
    }
}
