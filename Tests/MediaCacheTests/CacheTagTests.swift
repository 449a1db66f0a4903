import Foundation
import MediaCache
@testable import MediaCacheFolder
import MediaInterfaces
import Testing
import TestKit

/// mediaplay deletes only what it wrote: entries named as it names them,
/// in a folder it made and marked (CACHEDIR.TAG). A cache folder pointed
/// at the user's own files is never cleared.
@Suite struct CacheTagTests {
    static let hash = String(repeating: "0123456789abcdef", count: 4)

    static func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func entryNamesAreMediaplays() {
        for name in [Self.hash, Self.hash + ".mp3", Self.hash + ".part", Self.hash + ".lock", Self.hash + ".mp3.part", Self.hash + ".webm.lock", Self.hash + ".12345678"] {
            #expect(CacheFolder.isEntryFileName(name), "\(name)")
        }
        for name in ["my-thesis.docx", "holiday.jpg", "", ".part", String(Self.hash.dropLast()), Self.hash.uppercased(), Self.hash + "0", Self.hash + ".", Self.hash + ".MP3", Self.hash + ".123456789", Self.hash + ".mp3.txt", Self.hash + "/x"] {
            #expect(!CacheFolder.isEntryFileName(name), "\(name)")
        }
        #expect(CacheFolder.isEntryFileName(MediaCache.entryName(for: URL(string: "https://example.org/a/Song.OGG?x=1")!)))
    }

    /// A new cache folder gets mediaplay's tag, by the Cache Directory Tagging spec.
    @Test func aNewCacheIsMarked() throws {
        let folder = try TemporaryDirectory()
        let cache = try MediaCache(directory: folder.path + "/cache")
        let tag = try String(contentsOfFile: folder.path + "/cache/CACHEDIR.TAG", encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55\n"))
        #expect(cache.folder.isOwn)
        #expect(try cache.clear().removed == 0)
    }

    /// The user's folder with an entries/ folder of their own: nothing
    /// removed, no tag written, the refusal names the folder and the fix.
    @Test func aFolderOfTheUsersIsNeverCleared() throws {
        let folder = try TemporaryDirectory()
        try folder.write("entries/my-thesis.docx", "chapter one")
        try folder.write("entries/holiday.jpg", "jpeg")
        try folder.write("entries/\(Self.hash).mp3", "looks like an entry")
        let cache = try MediaCache(directory: folder.path)
        #expect(!cache.folder.isOwn)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/CACHEDIR.TAG"))
        #expect(throws: CacheError.self) { try cache.clear() }
        do {
            _ = try cache.clear()
        } catch {
            #expect(error.description.hasPrefix("not clearing \(folder.path): ") && error.description.contains("--cache-dir"), "\(error)")
        }
        #expect(throws: CacheError.self) { try cache.removeEntry(for: URL(string: "https://example.org/x.mp3")!) }
        #expect(Self.files(folder.path + "/entries") == [Self.hash + ".mp3", "holiday.jpg", "my-thesis.docx"])
    }

    /// Files beside a folder's cache (the cache pointed at the home folder
    /// by an earlier version) keep it unmarked: a tag there would also hide
    /// the whole folder from backups.
    @Test func aFolderWithOtherFilesBesideTheCacheIsNotMarked() throws {
        let folder = try TemporaryDirectory()
        try folder.write("notes.txt", "mine")
        try folder.write("entries/\(Self.hash)", "entry")
        let cache = try MediaCache(directory: folder.path)
        #expect(!cache.folder.isOwn)
        #expect(throws: CacheError.self) { try cache.clear() }
        #expect(Self.files(folder.path + "/entries") == [Self.hash])
    }

    /// Another program's CACHEDIR.TAG is not mediaplay's.
    @Test func anotherProgramsTagIsNotMediaplays() throws {
        let folder = try TemporaryDirectory()
        try folder.write("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by cargo.\n")
        let cache = try MediaCache(directory: folder.path)
        #expect(!cache.folder.isOwn)
        #expect(throws: CacheError.self) { try cache.clear() }
        #expect(try String(contentsOfFile: folder.path + "/CACHEDIR.TAG", encoding: .utf8).contains("cargo"))
    }

    /// A cache an earlier version made (index and entries, no tag) is
    /// mediaplay's: it is marked and clears as before.
    @Test func anEarlierVersionsCacheIsAdopted() throws {
        let folder = try TemporaryDirectory()
        _ = try MediaCache(directory: folder.path + "/cache")
        unlink(folder.path + "/cache/CACHEDIR.TAG")
        try folder.write("cache/entries/\(Self.hash).mp3", "entry")
        try folder.write("cache/entries/\(Self.hash).mp3.part", "part")
        let cache = try MediaCache(directory: folder.path + "/cache")
        #expect(cache.folder.isOwn)
        let result = try cache.clear()
        #expect(result.removed == 1 && result.bytes == 9, "\(result)")
        #expect(Self.files(folder.path + "/cache/entries").isEmpty)
    }

    /// An index.sqlite that is not mediaplay's keeps the folder unmarked.
    @Test func aForeignIndexIsNotAdopted() throws {
        let folder = try TemporaryDirectory()
        try folder.write("index.sqlite", "not a database")
        #expect(!CacheTag.holdsOnlyMediaplaysFiles(folder.path))
        #expect(!CacheTag.claim(folder.path))
    }

    /// In its own folder, `clear` removes its entries and leaves a file it
    /// did not name (put there by hand later).
    @Test func clearLeavesFilesMediaplayDidNotName() throws {
        let folder = try TemporaryDirectory()
        let cache = try MediaCache(directory: folder.path + "/cache")
        try folder.write("cache/entries/\(Self.hash)", "entry")
        try folder.write("cache/entries/notes.txt", "mine")
        let result = try cache.clear()
        #expect(result.removed == 1)
        #expect(Self.files(folder.path + "/cache/entries") == ["notes.txt"])
    }

    /// Rebuilding a damaged index drops mediaplay's part files only in its
    /// own folder, and never a file it did not name.
    @Test func indexRepairRemovesOnlyMediaplaysPartFiles() throws {
        for own in [true, false] {
            let folder = try TemporaryDirectory()
            _ = try MediaCache(directory: folder.path + "/cache")
            if !own { unlink(folder.path + "/cache/CACHEDIR.TAG") }
            try folder.write("cache/entries/\(Self.hash).part", "part")
            try folder.write("cache/entries/draft.part", "mine")
            for suffix in ["-wal", "-shm"] { unlink(folder.path + "/cache/index.sqlite" + suffix) }
            try folder.write("cache/index.sqlite", String(repeating: "not a database ", count: 500))
            let cache = try MediaCache(directory: folder.path + "/cache")
            #expect(cache.recoveredIndex != nil)
            #expect(Self.files(folder.path + "/cache/entries") == (own ? ["draft.part"] : [Self.hash + ".part", "draft.part"]), "own: \(own)")
        }
    }
}
