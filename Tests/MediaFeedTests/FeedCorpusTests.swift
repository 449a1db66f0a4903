import Foundation
import MediaModel
import Testing
@testable import MediaFeed

/// mediaplay's readers against an outside oracle (issue #44): every file
/// of Tests/FeedCorpus (real-world-shaped feeds written for this test) is
/// read, and its titles, enclosures, guids, dates and durations compared
/// with what feedparser read from it (Tests/FeedCorpus/expectations.json,
/// written by scripts/feed-oracle.py; no Python here). Where feedparser is
/// wrong, the expectations' "exceptions" give the right value and say why.
@Suite struct FeedCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FeedCorpus")

    struct Expectations {
        /// Per file: the feed's title and its entries' fields (NSNull where feedparser has none).
        var files: [String: [String: Any]]
        /// Per file, per entry index, per field: {"value", "why"}.
        var exceptions: [String: [String: [String: [String: Any]]]]
    }

    static func expectations() throws -> Expectations {
        let data = try Data(contentsOf: corpus.appendingPathComponent("expectations.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(document["files"] as? [String: [String: Any]])
        let exceptions = document["exceptions"] as? [String: [String: [String: [String: Any]]]] ?? [:]
        return Expectations(files: files, exceptions: exceptions)
    }

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { $0 != "expectations.json" && !$0.hasPrefix(".") }.sorted()
    }

    /// Every file in the corpus has expectations, and every one of them a file.
    @Test func theCorpusAndItsExpectationsMatch() throws {
        let expected = try Self.expectations()
        #expect(Self.names.count >= 15)
        #expect(Set(expected.files.keys) == Set(Self.names), "run scripts/feed-oracle.py after changing the corpus")
        for (file, entries) in expected.exceptions {
            for (index, fields) in entries {
                for (field, exception) in fields {
                    #expect(exception["why"] is String && exception["value"] != nil, "\(file) \(index) \(field): a value and why")
                }
            }
        }
    }

    @Test(arguments: names)
    func readsAsFeedparserDoes(file: String) throws {
        let expected = try Self.expectations()
        let oracle = try #require(expected.files[file])
        let bytes = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(file)))
        let feed = try FeedDecoder.decode(bytes, origin: .remote(URL(string: "https://feeds.example.org/corpus/\(file)")!))
        if let title = oracle["title"] as? String { #expect(feed.title == title, "\(file): the feed's title") }
        let entries = try #require(oracle["entries"] as? [[String: Any]])
        try #require(feed.items.count == entries.count, "\(file): \(feed.items.count) items, feedparser \(entries.count)")
        let exceptions = expected.exceptions[file] ?? [:]
        for (index, entry) in entries.enumerated() {
            let item = feed.items[index]
            let ours: [String: Any?] = [
                "title": item.titleIsDerived ? nil : item.title,
                "enclosure": item.source?.description,
                "guid": item.id,
                "date": item.published.map(FeedDates.text),
                "duration": item.duration,
            ]
            for field in ["title", "enclosure", "guid", "date", "duration"] {
                var theirs = entry[field].flatMap { $0 is NSNull ? nil : $0 }
                if let exception = exceptions[String(index)]?[field] {
                    // feedparser is wrong here: the right value, and feedparser's really differs.
                    #expect(!Self.same(theirs, exception["value"]), "\(file) #\(index) \(field): feedparser now agrees; drop the exception")
                    theirs = exception["value"].flatMap { $0 is NSNull ? nil : $0 }
                }
                // An id or a title feedparser has none for is ours to make.
                if theirs == nil && (field == "guid" || field == "title") { continue }
                #expect(Self.same(ours[field] ?? nil, theirs), "\(file) #\(index) \(field): ours \(String(describing: ours[field] ?? nil)), expected \(String(describing: theirs))")
            }
        }
    }

    static func same(_ ours: Any?, _ theirs: Any?) -> Bool {
        switch (ours, theirs) {
        case (nil, nil): return true
        case let (a as String, b as String): return a == b
        case let (a as Double, b as NSNumber): return a == b.doubleValue
        case let (a as NSNumber, b as NSNumber): return a.doubleValue == b.doubleValue
        default: return false
        }
    }
}
