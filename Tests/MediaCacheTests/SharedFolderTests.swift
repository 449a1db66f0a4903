import Foundation
import MediaFeed
import MediaModel
import Testing
import TestKit
@testable import MediaCacheFolder

/// A command holding the cache folder shares one open index (`shared`), and
/// a whole list's details read back as stored, each distinct JSON text once.
struct SharedFolderTests {
    @Test func oneOpenIndexWhileHeldAndNoneKeptAfter() throws {
        let scratch = try TemporaryDirectory()
        let directory = scratch.path + "/cache"
        var held: CacheFolder? = try CacheFolder.shared(directory: directory)
        var again: CacheFolder? = try CacheFolder.shared(directory: directory)
        #expect(held === again, "the same folder while it is held")
        #expect(try CacheFolder.shared(directory: scratch.path + "/other") !== held, "another folder, another index")
        weak let released = held
        held = nil
        again = nil
        #expect(released == nil, "a folder nobody holds is not kept open")
    }

    /// A copy kept beside the caller (a list goes on to its rows) is
    /// written whole before the folder closes, and the index takes reads
    /// meanwhile.
    @Test func aCopyKeptBesideIsWrittenBeforeTheFolderCloses() throws {
        let scratch = try TemporaryDirectory()
        let directory = scratch.path + "/cache"
        let url = "upnp+http://music.local:8200/rootDesc.xml"
        let body = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        do {
            let folder = try CacheFolder.shared(directory: directory)
            folder.keepBeside(KeptFeed(url: url, body: body, etag: nil, lastModified: nil, fetched: 7))
            #expect(try folder.snapshot().records.isEmpty, "a read while the copy is written")
        }
        let reopened = try CacheFolder(directory: directory)
        let key = try #require(URL(string: url))
        let kept = try #require(reopened.keptFeed(for: key))
        #expect(kept.body == body && kept.fetched == 7)
    }

    @Test func aWholeListsDetailsReadBackAsStored() throws {
        let scratch = try TemporaryDirectory()
        let folder = try CacheFolder.shared(directory: scratch.path + "/cache")
        func details(_ title: String, tracks: [MediaTrack]?, chapters: [Chapter] = [], loudness: Loudness? = nil) -> MediaDetails {
            var details = MediaDetails(duration: 2, title: title, artist: "A", album: "B", codec: "mp3", sampleRate: 44_100, track: 1)
            details.tracks = tracks
            details.chapters = chapters
            details.loudness = loudness
            details.measured = loudness != nil
            return details
        }
        let mp3 = [MediaTrack(kind: .audio, number: 1, codec: "mp3")]
        let stored: [(url: String, stored: StoredDetails)] = (1...40).map { number in
            let tracks = number % 3 == 0 ? mp3 + [MediaTrack(kind: .subtitle, number: 1, language: "en", codec: "subrip")] : mp3
            let chapters = number % 5 == 0 ? [Chapter(start: 0, title: "One"), Chapter(start: 1, title: "Two \(number)")] : []
            let loudness = number % 7 == 0 ? Loudness(integrated: -16 - Double(number), range: 4, truePeak: -1) : nil
            let file = StoredDetails(details: details("Song \(number)", tracks: number == 40 ? nil : tracks, chapters: chapters, loudness: loudness), fileSize: Int64(number), fileTime: 3)
            return (url: "file:///music/\(number).mp3", stored: file)
        }
        folder.store(stored)
        let read = folder.storedDetails()
        #expect(read.count == 40)
        for (url, file) in stored {
            #expect(read[url] == file, "\(url)")
            #expect(folder.storedDetails(for: url) == file, "\(url) alone")
        }
    }
}
