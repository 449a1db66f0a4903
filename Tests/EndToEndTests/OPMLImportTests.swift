import Foundation
import Testing
import InProcessRunner
import TestKit

/// `mediaplay feeds import` with a hostile OPML file (issue #41, item 9):
/// only http(s) URLs become named feeds, the rest are listed as skipped
/// with the reason, so `feeds` never reads a file of this computer; and a
/// list of 100,000 is imported in one pass, kept where no other command
/// reads it.
@Suite struct OPMLImportTests {
    static func outline(_ title: String, _ url: String) -> String {
        #"<outline type="rss" text="\#(title)" xmlUrl="\#(url)"/>"#
    }

    @Test func onlyHTTPFeedsAreImported() async throws {
        let home = try await ConfigFileTests.home()
        let secret = try home.folder.write("id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
        let server = try TestHTTPServer()
        server.serve("/pod.xml", bytes: Array(#"<rss version="2.0"><channel><title>Pod</title><item><title>A</title><enclosure url="https://e.org/a.mp3" type="audio/mpeg"/></item></channel></rss>"#.utf8))
        let hostile = [
            ("Local", "file://\(secret)"), ("Absolute", secret), ("Relative", "id_rsa"), ("Home", "~/.ssh/id_rsa"),
            ("Data", "data:text/xml;base64,PHJzcy8+"), ("Gopher", "gopher://example.org/1"), ("Option", "--cache-dir=/"),
        ]
        let opml = try home.folder.write("subs.opml", """
            <?xml version="1.0"?>
            <opml version="2.0"><body>
            \((hostile.map { Self.outline($0.0, $0.1) } + [Self.outline("Pod", server.url("/pod.xml").absoluteString), Self.outline("Other", "https://feeds.invalid/rss")]).joined(separator: "\n"))
            </body></opml>
            """)
        let imported = try await Mediaplay.runInProcess(["feeds", "import", opml], environment: home.environment)
        #expect(imported.status == 0 && imported.stdout.contains("Added 2 feeds") && imported.stdout.contains("pod, other"), "\(imported.stdout) \(imported.stderr)")
        let reasons = [
            "Local": "a file on this computer", "Absolute": "a path", "Relative": "a path", "Home": "a path",
            "Data": "a data: URL", "Gopher": "a gopher: URL", "Option": "command-line option",
        ]
        for (title, reason) in reasons {
            let line = imported.stdout.split(separator: "\n").first { $0.hasPrefix("Skipped \"\(title)\"") }
            #expect(line?.contains(reason) == true, "\(title): \(imported.stdout)")
        }
        let text = try String(contentsOfFile: home.folder.path + "/config/mediaplay/feeds.toml", encoding: .utf8)
        #expect(text.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["pod = \"\(server.url("/pod.xml").absoluteString)\"", "other = \"https://feeds.invalid/rss\""], "\(text)")

        // `feeds` reads only what was kept: no private key's first bytes.
        let feeds = try await Mediaplay.runInProcess(["feeds", "--json"], environment: home.environment)
        #expect(!feeds.stdout.contains("OPENSSH") && !feeds.stdout.contains(secret), "\(feeds.stdout)")
        #expect(feeds.stdout.split(separator: "\n").count == 2)
        let list = try await Mediaplay.runInProcess(["list", "--feed", "pod"], environment: home.environment)
        #expect(list.status == 0 && list.stdout.hasPrefix("Pod · 1 item"), "\(list.stdout) \(list.stderr)")
    }

    /// 100,000 subscriptions, a third of them with one title: imported in
    /// one pass, each with a name of its own, and a later command whose
    /// feed is not one of them does not read them.
    @Test func aHundredThousandSubscriptions() async throws {
        let home = try await ConfigFileTests.home()
        var outlines: [String] = []
        outlines.reserveCapacity(100_000)
        for number in 0..<100_000 {
            outlines.append(Self.outline(number % 3 == 0 ? "Same" : "Pod \(number)", "https://feeds.invalid/\(number).xml"))
        }
        let opml = try home.folder.write("big.opml", "<opml version=\"2.0\"><body>\n" + outlines.joined(separator: "\n") + "\n</body></opml>\n")
        let imported = try await Mediaplay.runInProcess(["feeds", "import", opml], environment: home.environment)
        #expect(imported.status == 0 && imported.stdout.contains("Added 100000 feeds") && imported.stdout.contains("and 99990 more"), "\(imported.stdout.prefix(300)) \(imported.stderr)")
        let text = try String(contentsOfFile: home.folder.path + "/config/mediaplay/feeds.toml", encoding: .utf8)
        let names = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.prefix { $0 != " " } }
        #expect(names.count == 100_000 && Set(names).count == 100_000 && names.contains("same-33334"))
        #expect(!FileManager.default.fileExists(atPath: home.folder.path + "/config/mediaplay/config.toml"), "config.toml is not made for them")

        let list = try await home.runInProcess("list")
        #expect(list.status == 0 && list.stdout.contains("Tone"), "\(list.stdout) \(list.stderr)")
        let named = try await Mediaplay.runInProcess(["list", "--feed", "pod-99998", "--json"], environment: home.environment)
        #expect(named.stderr.contains("https://feeds.invalid/99998.xml"), "the name is found: \(named.stderr)")
    }
}
