import Foundation
import Testing
import InProcessRunner
import TestKit

/// A password in a feed's URL is never shown (issue #41, item 10): its
/// userinfo is `***` in errors, tables and titles.
@Suite struct SecretURLTests {
    @Test func aFeedURLsPasswordIsNotPrinted() async throws {
        let home = try await ConfigFileTests.home()
        let url = "http://alice:s3cr3tpw@127.0.0.1:1/feed.xml"
        let list = try await Mediaplay.runInProcess(["list", "--feed", url], environment: home.environment)
        #expect(list.status == 69, "connection refused: \(list.status) \(list.stderr)")
        #expect(list.stderr.contains("http://***@127.0.0.1:1/feed.xml") && !list.stderr.contains("s3cr3tpw") && !list.stderr.contains("alice"), "\(list.stderr)")

        // A named feed with a password: `feeds` shows where it is, without it.
        try FileManager.default.createDirectory(atPath: home.folder.path + "/config/mediaplay", withIntermediateDirectories: true)
        try "private = \"\(url)\"\n".write(toFile: home.folder.path + "/config/mediaplay/feeds.toml", atomically: true, encoding: .utf8)
        let feeds = try await Mediaplay.runInProcess(["feeds"], environment: home.environment)
        #expect(feeds.status == 0 && feeds.stdout.contains("private") && feeds.stdout.contains("***@127.0.0.1"), "\(feeds.stdout) \(feeds.stderr)")
        #expect(!(feeds.stdout + feeds.stderr).contains("s3cr3tpw"), "\(feeds.stdout) \(feeds.stderr)")
        let named = try await Mediaplay.runInProcess(["list", "--feed", "private"], environment: home.environment)
        #expect(named.status == 69 && named.stderr.contains("***@") && !named.stderr.contains("s3cr3tpw"), "\(named.stderr)")
    }

    /// Not in `--json` either: a feed served with a password in its items'
    /// URLs lists them as ***, and `feeds --json` its location.
    @Test func jsonOutputHasNoPasswordEither() async throws {
        let home = try await ConfigFileTests.home()
        let server = try TestHTTPServer()
        let rss = #"<rss version="2.0"><channel><title>Private</title><item><title>One</title><enclosure url="http://bob:hunter22@127.0.0.1:1/one.mp3" type="audio/mpeg" length="1"/></item></channel></rss>"#
        server.serve("/feed.xml", bytes: Array(rss.utf8))
        let url = server.url("/feed.xml").absoluteString.replacingOccurrences(of: "http://", with: "http://alice:s3cr3tpw@")
        let list = try await Mediaplay.runInProcess(["list", "--json", "--feed", url], environment: home.environment)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("***@127.0.0.1:1/one.mp3") && !list.stdout.contains("hunter22") && !list.stdout.contains("s3cr3tpw"), "\(list.stdout)")
        try FileManager.default.createDirectory(atPath: home.folder.path + "/config/mediaplay", withIntermediateDirectories: true)
        try "private = \"\(url)\"\n".write(toFile: home.folder.path + "/config/mediaplay/feeds.toml", atomically: true, encoding: .utf8)
        let feeds = try await Mediaplay.runInProcess(["feeds", "--json"], environment: home.environment)
        #expect(feeds.stdout.contains("***@") && !feeds.stdout.contains("s3cr3tpw"), "\(feeds.stdout) \(feeds.stderr)")
    }

    /// The background player started for a feed with a password gets it
    /// through its environment (its user's alone), not its command line
    /// (anyone's, in /proc).
    @Test func theBackgroundPlayersCommandLineHasNoPassword() async throws {
        let server = try TestHTTPServer()
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let tone = try await Fixtures.make(fixture.name, fixture.arguments)
        server.serve("/tone.wav", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: tone))))
        let rss = #"<rss version="2.0"><channel><title>Private</title><item><title>One</title><enclosure url="/tone.wav" type="audio/wav" length="1"/></item></channel></rss>"#
        server.serve("/feed.xml", bytes: Array(rss.utf8))
        let home = try await UserHome()
        home.feed = server.url("/feed.xml").absoluteString.replacingOccurrences(of: "http://", with: "http://alice:s3cr3tpw@")
        let toggle = try await home.runInProcess("toggle", "1")
        #expect(toggle.status == 0, "\(toggle.stderr)")
        let pid = try #require(home.daemonPID)
        let commandLine = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data(), as: UTF8.self)
        #expect(!commandLine.isEmpty && !commandLine.contains("s3cr3tpw"), "\(commandLine)")
        let status = try await home.runInProcess("status")
        #expect(!status.stdout.contains("s3cr3tpw"), "\(status.stdout)")
        _ = try await home.runInProcess("quit")
    }
}
