import Foundation
@testable import MediaCacheFolder
import MediaFeed
import MediaModel
import Testing
import TestKit

/// The cache index keeps a file's tracks; a row kept before tracks were
/// probed is probed again, and keeps the loudness measured for that file.
@Suite struct TrackDetailsTests {
    @Test func aRowWithoutTracksIsProbedAgainAndKeepsItsLoudness() throws {
        let folder = try TemporaryDirectory()
        let index = try CacheIndex(path: folder.path + "/index.sqlite")
        let url = "file:///music/a.mkv"
        var old = MediaDetails(duration: 3, codec: "h264")
        old.measured = true
        old.loudness = Loudness(integrated: -20, range: 3, truePeak: -2)
        try index.store(StoredDetails(details: old, fileSize: 10, fileTime: 5), for: url)
        #expect(index.details(for: url)?.details.tracks == nil, "probed before tracks were")

        // Probed again: the same file, its tracks now, nothing measured by the probe.
        var again = MediaDetails(duration: 3, codec: "h264")
        again.tracks = [MediaTrack(kind: .audio, number: 1, language: "en", codec: "aac"), MediaTrack(kind: .subtitle, number: 1, codec: "hdmv_pgs_subtitle", isBitmap: true)]
        try index.store(StoredDetails(details: again, fileSize: 10, fileTime: 5), for: url)
        let stored = try #require(index.details(for: url)?.details)
        #expect(stored.tracks == again.tracks)
        #expect(stored.loudness == old.loudness && stored.measured, "what was measured stays")
        // A file with none keeps an empty list (probed), not nothing.
        var none = MediaDetails(duration: 1)
        none.tracks = []
        try index.store(StoredDetails(details: none, fileSize: 1, fileTime: 1), for: "file:///b.png")
        #expect(index.details(for: "file:///b.png")?.details.tracks == [])
    }
}
