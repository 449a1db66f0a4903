import Foundation
import MediaFeed
import MediaModel
import Testing

/// A URL's userinfo is never shown (issue #41, item 10): the one function
/// every message, log line, title and table goes through.
@Suite struct RedactedURLTests {
    @Test(arguments: [
        ("http://alice:s3cr3tpw@127.0.0.1:1/feed.xml", "http://***@127.0.0.1:1/feed.xml"),
        ("https://alice@example.org/rss", "https://***@example.org/rss"),
        ("https://al%40ice:p%3Aw%2F@example.org", "https://***@example.org"),
        ("http://bob:pw@[::1]:8080/a.mp3?x=1", "http://***@[::1]:8080/a.mp3?x=1"),
        ("http://a:p@ss@host/feed", "http://***@host/feed"),
        ("HTTPS://Alice:pw@Example.org#top", "HTTPS://***@Example.org#top"),
        // An apostrophe is a password's character, not the URL's end.
        ("http://bob:it's@host/feed", "http://***@host/feed"),
        // In a message: every URL, and only the userinfo.
        ("cannot fetch feed http://alice:pw@h/f.xml: refused (retry); see ftp://u:p@x/", "cannot fetch feed http://***@h/f.xml: refused (retry); see ftp://***@x/"),
        ("feed \"https://u:p@e.org/a\" and https://e.org/b?mail=a@b.c", "feed \"https://***@e.org/a\" and https://e.org/b?mail=a@b.c"),
    ])
    func userinfoIsReplaced(_ example: (text: String, shown: String)) {
        #expect(example.text.redactingUserinfo == example.shown)
        #expect(!example.shown.contains("s3cr3tpw"))
    }

    @Test(arguments: [
        "https://example.org/feed.xml", "http://[::1]:8080/a@b", "alice@example.org", "/home/me/a@b.mp3",
        "mailto:alice@example.org", "Tom & Jerry @ 5", "", "https://e.org/p?q=1#a@b", "no URL here ://",
    ])
    func textWithoutUserinfoIsUntouched(_ text: String) {
        #expect(text.redactingUserinfo == text)
    }

    /// A feed of one URL is titled after it: without the password.
    @Test func aSingleURLsTitleIsRedacted() throws {
        let feed = Feed.single(.remote(try #require(URL(string: "https://alice:s3cr3tpw@example.org/talk.mp3"))))
        #expect(feed.title == "https://***@example.org/talk.mp3" && feed.items.first?.title == feed.title)
    }
}
