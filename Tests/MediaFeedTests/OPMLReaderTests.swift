import MediaFeed
import Testing

/// What an OPML import takes (issue #41, item 9): http(s) URLs with a
/// host; anything else is skipped with the reason.
@Suite struct OPMLReaderTests {
    @Test(arguments: ["https://example.org/rss", "http://example.org:8080/feed.xml?x=1", "HTTPS://EXAMPLE.ORG/a", "http://[::1]/f"])
    func anHTTPURLIsKept(_ url: String) {
        #expect(OPMLReader.problem(with: url) == nil)
    }

    @Test(arguments: [
        ("file:///etc/passwd", "file on this computer"), ("/etc/passwd", "a path"), ("feeds/x.xml", "a path"),
        ("~/.ssh/id_rsa", "a path"), ("../x", "a path"), ("gopher://example.org/1", "gopher: URL"),
        ("data:text/xml,<rss/>", "data: URL"), ("--cache-dir=/", "command-line option"), ("-x", "command-line option"),
        ("", "empty"), ("http:///feed", "without a host"), ("https://e.org/a b", "spaces"), ("https://e.org/\u{0}", "control"),
        ("javascript:alert(1)", "javascript: URL"),
    ])
    func anythingElseIsSkippedWithItsReason(_ example: (url: String, reason: String)) {
        let problem = OPMLReader.problem(with: example.url)
        #expect(problem?.contains(example.reason) == true, "\(example.url): \(String(describing: problem))")
    }

    @Test func aListsSubscriptionsCarryTheirProblem() throws {
        let opml = #"<opml version="2.0"><body><outline text="A" xmlUrl="https://e.org/a"/><outline text="B" xmlUrl="file:///etc/passwd"/></body></opml>"#
        let subscriptions = try OPMLReader.subscriptions(Array(opml.utf8))
        #expect(subscriptions.map(\.url) == ["https://e.org/a", "file:///etc/passwd"])
        #expect(subscriptions[0].problem == nil && subscriptions[1].problem != nil)
    }
}
