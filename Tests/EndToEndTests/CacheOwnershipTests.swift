import Foundation
import Testing
import InProcessRunner
import TestKit

/// mediaplay deletes only what it wrote (issue #41, round 4): `cache clear`
/// and `cache remove` work in a cache folder it made (its CACHEDIR.TAG),
/// and refuse, with one line, a folder of the user's that the cache folder
/// was pointed at (`cache clear` removed a thesis and a holiday picture).
@Suite struct CacheOwnershipTests {
    /// A feed of one remote item served from a loopback server.
    struct Setup {
        let folder: TemporaryDirectory
        let server: TestHTTPServer
        let feed: String

        init() throws {
            folder = try TemporaryDirectory()
            server = try TestHTTPServer()
            server.serve("/song.mp3", bytes: TestHTTPServer.bytes(count: 3000, seed: 41))
            feed = try folder.write("feed.json", #"[{"type": "audio", "title": "Song", "url": "\#(server.url("/song.mp3").absoluteString)"}]"#)
        }
    }

    static func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n")
    }

    /// The cache folder pointed at a folder of the user's with an entries/
    /// folder: nothing removed, exit 74, one line naming the folder and
    /// the fix.
    @Test func clearKeepsTheUsersFiles() async throws {
        let setup = try Setup()
        let documents = setup.folder.path + "/Documents"
        try setup.folder.write("Documents/entries/my-thesis.docx", "chapter one")
        try setup.folder.write("Documents/entries/holiday.jpg", "jpeg")
        for how in [["--cache-dir", documents], []] {
            let result = try await Mediaplay.runInProcess(["cache", "clear", "--feed", setup.feed] + how, environment: how.isEmpty ? ["MEDIAPLAY_CACHE_DIR": documents] : [:])
            #expect(result.status == 74 && !result.killedBySignal, "\(how): \(result.status) \(result.stderr)")
            #expect(Self.lines(result.stderr).count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("mediaplay: not clearing \(documents): it is not a cache folder mediaplay made"), "\(result.stderr)")
            #expect(result.stderr.contains("--cache-dir"), "\(result.stderr)")
            #expect(!result.stdout.contains("Removed"), "\(result.stdout)")
            #expect(Self.files(documents + "/entries") == ["holiday.jpg", "my-thesis.docx"])
            #expect(!FileManager.default.fileExists(atPath: documents + "/CACHEDIR.TAG"), "the user's folder is not marked")
        }
        let removed = try await Mediaplay.runInProcess(["cache", "remove", "1", "--feed", setup.feed, "--cache-dir", documents])
        #expect(removed.status == 74, "\(removed.stderr)")
        #expect(removed.stderr.hasPrefix("mediaplay: not removing from \(documents): "), "\(removed.stderr)")
        #expect(Self.files(documents + "/entries") == ["holiday.jpg", "my-thesis.docx"])
    }

    /// A cache mediaplay made is marked, and clears as ever.
    @Test func aCacheMediaplayMadeClears() async throws {
        let setup = try Setup()
        let cache = setup.folder.path + "/cache"
        let fetched = try await Mediaplay.runInProcess(["fetch", "1", "--feed", setup.feed, "--cache-dir", cache])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let tag = try String(contentsOfFile: cache + "/CACHEDIR.TAG", encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55\n"), "\(tag)")
        let cleared = try await Mediaplay.runInProcess(["cache", "clear", "--feed", setup.feed, "--cache-dir", cache])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(cleared.stdout.hasPrefix("Removed 1 entry, "), "\(cleared.stdout)")
        #expect(Self.files(cache + "/entries").isEmpty)
    }

    /// A cache of a version before the tag (its index, entries named as
    /// mediaplay names them) is taken as mediaplay's: marked, and cleared;
    /// a file of the user's put in its entries keeps it unmarked.
    @Test func anEarlierCacheIsAdoptedUnlessItHoldsOtherFiles() async throws {
        let setup = try Setup()
        let cache = setup.folder.path + "/cache"
        #expect(try await Mediaplay.runInProcess(["fetch", "1", "--feed", setup.feed, "--cache-dir", cache]).status == 0)
        unlink(cache + "/CACHEDIR.TAG")
        try setup.folder.write("cache/entries/notes.txt", "mine")
        let refused = try await Mediaplay.runInProcess(["cache", "clear", "--feed", setup.feed, "--cache-dir", cache])
        #expect(refused.status == 74, "\(refused.stderr)")
        let kept = Self.files(cache + "/entries")
        #expect(kept.contains("notes.txt") && kept.contains { $0.hasSuffix(".mp3") }, "\(kept)")

        unlink(cache + "/entries/notes.txt")
        let cleared = try await Mediaplay.runInProcess(["cache", "clear", "--feed", setup.feed, "--cache-dir", cache])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(cleared.stdout.hasPrefix("Removed 1 entry, "), "\(cleared.stdout)")
        #expect(FileManager.default.fileExists(atPath: cache + "/CACHEDIR.TAG"))
    }
}
