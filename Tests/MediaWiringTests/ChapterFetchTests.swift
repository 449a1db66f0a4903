import Foundation
import MediaCache
import MediaFeed
import MediaModel
@testable import MediaSession
import Testing
import TestKit

/// A chapters file read with the cache's one-shot fetch (libcurl) where no
/// store is open (moved from MediaSessionTests' ChapterBookTests, which
/// builds without libcurl).
@Suite struct ChapterFetchTests {
    static let document = Array(#"{"version": "1.2.0", "chapters": [{"startTime": 0, "title": "Cold open"}, {"startTime": 15, "title": "Interview"}]}"#.utf8)

    func episode() -> FeedItem {
        var item = FeedItem(position: 1, id: "ep", title: "Episode", kind: .audio, source: .remote(URL(string: "http://media.invalid/ep.mp3")!))
        item.chaptersURL = URL(string: "http://media.invalid/ep/chapters.json")!
        return item
    }

    /// A session of local media has no store: the file is fetched directly.
    @Test func withoutAStoreTheFileIsFetchedDirectly() throws {
        let server = try TestHTTPServer()
        server.serve("/chapters.json", bytes: Self.document)
        let url = server.url("/chapters.json")
        #expect(ChapterBook.fetch(url, of: episode(), from: nil, or: HTTPDocuments()) == .chapters([Chapter(start: 0, title: "Cold open"), Chapter(start: 15, title: "Interview")]))
        #expect(server.getCount("/chapters.json") == 1)
    }
}
