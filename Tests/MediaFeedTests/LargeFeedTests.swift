import Foundation
import MediaModel
import Testing
@testable import MediaFeed

/// A large feed is read on two threads (the drafts made beside the reading,
/// `DraftPipeline`): every item comes back in its place with its own values,
/// across the batches handed over, in RSS and in Atom.
@Suite struct LargeFeedTests {
    static let count = 1_300

    static func rss(_ count: Int) -> String {
        var text = #"<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Show</title>"#
        for number in 1...count {
            text += """
                <item><title>Episode \(number) &amp;amp; friends</title><guid>ep-\(number)</guid>
                <pubDate>Sun, 14 Feb 2021 \(number % 24):\(String(format: "%02d", number % 60)):00 +0100</pubDate>
                <enclosure url="https://example.org/\(number).mp3" type="audio/mpeg"/>
                <itunes:duration>\(number / 60):\(String(format: "%02d", number % 60))</itunes:duration>
                <description><![CDATA[<p>Notes for <b>\(number)</b>.</p>]]></description></item>
                """
        }
        return text + "</channel></rss>"
    }

    @Test func rssItemsKeepTheirPlaceAndValues() throws {
        let feed = try FeedDecoder.decode(Array(Self.rss(Self.count).utf8))
        #expect(feed.items.count == Self.count)
        for (index, item) in feed.items.enumerated() {
            let number = index + 1
            #expect(item.position == number)
            #expect(item.id == "ep-\(number)")
            #expect(item.title == "Episode \(number) & friends", "the title's markup read as in a small feed")
            #expect(item.source?.description == "https://example.org/\(number).mp3")
            #expect(item.duration == Double(number / 60 * 60 + number % 60))
            #expect(item.description == "Notes for \(number).")
            let expected = FeedDates.parse("Sun, 14 Feb 2021 \(number % 24):\(String(format: "%02d", number % 60)):00 +0100")
            #expect(item.published == expected && expected != nil)
        }
    }

    @Test func atomEntriesKeepTheirPlace() throws {
        var text = #"<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Videos</title>"#
        for number in 1...Self.count {
            text += #"<entry><title>Clip \#(number)</title><id>urn:clip:\#(number)</id><updated>2024-01-02T03:04:05Z</updated>"#
                + #"<link rel="enclosure" href="https://example.org/\#(number).mp4" type="video/mp4"/></entry>"#
        }
        let feed = try FeedDecoder.decode(Array((text + "</feed>").utf8))
        #expect(feed.items.map(\.title) == (1...Self.count).map { "Clip \($0)" })
        #expect(feed.items.map(\.id) == (1...Self.count).map { "urn:clip:\($0)" })
    }

    /// A document that fails after many items stops the converting thread
    /// where it is (`stop`), and the drafts wait for nothing after it.
    @Test func aStoppedPipelineEndsWithoutTheRest() {
        let pipeline = DraftPipeline(origin: .unknown)
        for position in 1...1_000 {
            pipeline.add(PodcastReader.ItemFields(position: position, line: position))
        }
        pipeline.stop()
        // Whatever was made before the stop (thrown away by the reader): in
        // order, none twice, and finish returns instead of waiting for the rest.
        let made = pipeline.finish().map(\.position)
        #expect(made == made.sorted() && Set(made).count == made.count && made.count <= 1_000, "\(made.prefix(5))…")
        let next = DraftPipeline(origin: .unknown)
        for position in 1...700 { next.add(PodcastReader.ItemFields(position: position, line: position)) }
        #expect(next.finish().map(\.position) == Array(1...700))
    }

    /// The first readable date of several is the item's (feedparser's rule),
    /// whichever thread reads it.
    @Test func theFirstReadableDateOfSeveral() throws {
        func published(_ dates: String) throws -> String? {
            let text = #"<rss version="2.0" xmlns:dcterms="http://purl.org/dc/terms/"><channel><title>T</title><item><title>A</title>\#(dates)"#
                + #"<enclosure url="https://example.org/a.mp3" type="audio/mpeg"/></item></channel></rss>"#
            return try FeedDecoder.decode(Array(text.utf8)).items.first?.published.map(FeedDates.text)
        }
        #expect(try published("<pubDate>Sun, 14 Feb 2021 15:59:21 +0000</pubDate>") == "2021-02-14T15:59:21Z")
        #expect(try published("<pubDate>someday</pubDate><pubDate>Sun, 14 Feb 2021 15:59:21 +0000</pubDate>") == "2021-02-14T15:59:21Z")
        #expect(try published("<pubDate>never</pubDate><pubDate>later</pubDate><pubDate>2021-02-14T15:59:21Z</pubDate>") == "2021-02-14T15:59:21Z")
        #expect(try published("<pubDate>Sun, 14 Feb 2021 15:59:21 +0000</pubDate><pubDate>Mon, 15 Feb 2021 00:00:00 +0000</pubDate>") == "2021-02-14T15:59:21Z")
        #expect(try published("<pubDate>Sun, 14 Feb 2021 15:59:21 +0000</pubDate><dcterms:issued>2020-01-01T00:00:00Z</dcterms:issued>") == "2021-02-14T15:59:21Z")
        #expect(try published("<pubDate>not a date</pubDate>") == nil)
    }

    /// `itunes:duration` read in place agrees with the general reader it
    /// stands in for, on the edges too.
    @Test func durationsReadInPlaceAgreeWithTheGeneralReader() {
        for text in ["3600", "59:59", "1:02:03", "01:02:03", "1:60", "0", "00:00:00", "700000", "1:2:3:4", "::", "1:", ":1", "12.5", " 12",
                     "99999999999", "168:00:00", "168:00:01", "5:59:59", "1:5", "123456789", "1234567890"] {
            #expect(PodcastReader.duration(text) == CheckedNumber.duration(PlayerCommand.seconds(text) ?? Double(text)), "\(text)")
        }
    }
}
