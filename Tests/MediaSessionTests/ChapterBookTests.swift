import Foundation
@testable import MediaSession
import MediaFeed
import MediaModel
import SessionFakes
import Testing
import TestKit

/// The chapters book alone: whose chapters win, a chapters file claimed
/// once and read through the store, and where `chapter` goes.
@Suite struct ChapterBookTests {
    static let url = URL(string: "http://media.invalid/ep/chapters.json")!
    static let document = Array(#"{"version": "1.2.0", "chapters": [{"startTime": 0, "title": "Cold open"}, {"startTime": 15, "title": "Interview"}]}"#.utf8)
    let three = [Chapter(start: 0, title: "One"), Chapter(start: 10, title: "Two"), Chapter(start: 25, title: "Three")]

    func episode(chapters: [Chapter] = [], url: URL? = Self.url) -> FeedItem {
        var item = FeedItem(position: 1, id: "ep", title: "Episode", kind: .audio, source: .remote(URL(string: "http://media.invalid/ep.mp3")!))
        item.chapters = chapters
        item.chaptersURL = url
        return item
    }

    @Test func theFeedsChaptersWinThenAFetchedFileThenTheMedias() {
        var book = ChapterBook()
        let inFile = [Chapter(start: 0, title: "File")]
        #expect(book.chapters(of: episode(), inFile: inFile) == inFile)
        #expect(book.chapters(of: episode(), inFile: nil) == [])
        book.record(three, for: "ep")
        #expect(book.chapters(of: episode(), inFile: inFile) == three)
        #expect(book.chapters(of: episode(chapters: inFile), inFile: nil) == inFile, "the feed's own")
        book.record([], for: "ep")
        #expect(book.chapters(of: episode(), inFile: inFile) == inFile, "an empty file leaves the media's")
    }

    @Test func aChaptersFileIsClaimedOnce() {
        var book = ChapterBook()
        #expect(book.claim(episode(url: nil)) == nil, "none named")
        #expect(book.claim(episode(chapters: three)) == nil, "the feed has them")
        #expect(book.claim(episode()) == Self.url)
        #expect(book.claim(episode()) == nil, "being read, or read: not again")
        #expect(book.chapters(of: episode(), inFile: three) == three, "while it is read, the media's count")
    }

    @Test func theFileIsReadThroughTheStore() {
        let store = FakeStore([:], documents: [Self.url: Self.document])
        #expect(ChapterBook.fetch(Self.url, of: episode(), from: store) == .chapters([Chapter(start: 0, title: "Cold open"), Chapter(start: 15, title: "Interview")]))
        #expect(store.fetchedDocuments == [Self.url])
        let missing = URL(string: "http://media.invalid/none.json")!
        #expect(ChapterBook.fetch(missing, of: episode(), from: store) == .problem("chapters of \"Episode\" not fetched: HTTP 404 from media.invalid"))
        let wrong = FakeStore([:], documents: [Self.url: Array("[1, 2]".utf8)])
        #expect(ChapterBook.fetch(Self.url, of: episode(), from: wrong)
            == .problem("chapters of \"Episode\" not read: \(Self.url.absoluteString) holds no chapters in the Podcasting 2.0 JSON form"))
    }

    /// With neither a store nor a fetcher (a test's session), nothing is
    /// read: a problem for the log (MediaWiringTests' ChapterFetchTests
    /// reads one with libcurl).
    @Test func withNeitherStoreNorFetcherNothingIsRead() {
        #expect(ChapterBook.fetch(Self.url, of: episode(), from: nil) == .problem("chapters of \"Episode\" not fetched: this session reads nothing from the network"))
    }

    @Test func chapterNextPreviousAndNumber() throws {
        #expect(try ChapterBook.target(.next, in: three, at: 3) == 10)
        #expect(try ChapterBook.target(.next, in: [Chapter(start: 5, title: "Late")], at: 1) == 5, "before the first: the first")
        #expect(try ChapterBook.target(.previous, in: three, at: 13) == 10, "more than two seconds in: its own start")
        #expect(try ChapterBook.target(.previous, in: three, at: 11) == 0, "at its start: the one before")
        #expect(try ChapterBook.target(.previous, in: three, at: 1) == 0)
        #expect(try ChapterBook.target(.previous, in: [Chapter(start: 5, title: "Late")], at: 1) == 0, "before the first: the item's start")
        #expect(try ChapterBook.target(.number(3), in: three, at: 0) == 25)
        #expect(throws: CommandError(.noSuchItem, "already in the last chapter (3 of 3)")) { try ChapterBook.target(.next, in: three, at: 26) }
        #expect(throws: CommandError(.noSuchItem, "no chapter 4: the item has 3 (1–3)")) { try ChapterBook.target(.number(4), in: three, at: 0) }
        #expect(throws: CommandError(.badRequest, "the current item has no chapters")) { try ChapterBook.target(.next, in: [], at: 0) }
    }
}
