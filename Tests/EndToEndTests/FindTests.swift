import Foundation
import Testing
import InProcessRunner
import TestKit

/// Finding items: list's filters and orders keep the feed's numbers; tags
/// make the table's TITLE, ARTIST and ALBUM.
@Suite struct FindTests {
    @Test func listFiltersSortsAndKeepsTheFeedsNumbers() async throws {
        let folder = try TemporaryDirectory()
        let (root, _) = try await FormatsTests.musicFolder(in: folder)
        let cache = folder.path + "/cache"
        func list(_ arguments: String...) async throws -> ListJSON {
            let result = try await Mediaplay.runInProcess(["list", "--json", "--feed", root, "--cache-dir", cache] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        }
        // Song 2, Song 10 (artist Björk), zz (untagged).
        #expect(try await list("--grep", "bjork").items.map(\.position) == [1, 2], "accents aside, by the artist tag")
        #expect(try await list("--grep", "SONG 10").items.map(\.position) == [2])
        #expect(try await list("--grep", "zz.flac").items.map(\.position) == [3], "the file name")
        #expect(try await list("--kind", "video").items.isEmpty)
        #expect(try await list("--sort", "title", "--reverse").items.map(\.position) == [3, 1, 2], "zz, Song 2, Song 10 reversed by folded title")
        #expect(try await list("--sort", "artist").items.map(\.position) == [1, 2, 3], "no artist last")
        #expect(try await list("--sort", "duration", "--grep", "song").items.map(\.position) == [1, 2])
        // The table: tag titles, an ARTIST column; "2 of 3 items".
        let table = try await Mediaplay.runInProcess(["list", "--feed", root, "--cache-dir", cache, "--grep", "björk"], environment: ["COLUMNS": "100"])
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix("Music · 2 of 3 items") == true, "\(table.stdout)")
        #expect(lines.dropFirst().first?.contains("ARTIST") == true, "\(table.stdout)")
        #expect(lines.contains { $0.contains("Song 10") && $0.contains("Björk") }, "\(table.stdout)")
        // Narrow: ARTIST gives way to TITLE and STATE.
        let narrow = try await Mediaplay.runInProcess(["list", "--feed", root, "--cache-dir", cache], environment: ["COLUMNS": "50"])
        #expect(!narrow.stdout.contains("ARTIST"), "\(narrow.stdout)")
        let chosen = try await Mediaplay.runInProcess(["list", "--feed", root, "--cache-dir", cache, "--columns", "number,artist,title"], environment: ["COLUMNS": "100"])
        #expect(chosen.stdout.split(separator: "\n").dropFirst().first.map { $0.split(separator: " ") } == ["#", "ARTIST", "TITLE"], "\(chosen.stdout)")
        let bad = try await Mediaplay.runInProcess(["list", "--feed", root, "--columns", "number,colour"])
        #expect(bad.status == 64)
    }
}
