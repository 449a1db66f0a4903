import Foundation
import Testing
import InProcessRunner
import TestKit

/// The fourth probe's smaller findings, through the built programs: each
/// says what happened in words a person can act on, and leaves nothing behind.
@Suite struct HostileRoundFourTests {
    /// A config.toml that is a folder: the system's words, not Foundation's
    /// "NSCocoaErrorDomain error 256".
    @Test func aConfigFileThatIsAFolderIsSaidToBe() async throws {
        let home = try await UserHome()
        try FileManager.default.createDirectory(atPath: home.folder.path + "/config/mediaplay/config.toml", withIntermediateDirectories: true)
        let result = try await Mediaplay.runInProcess(["list", "--feed", home.folder.path], environment: home.environment.merging(["XDG_CONFIG_HOME": home.folder.path + "/config"]) { $1 })
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("config.toml:1:1: cannot be read: it is a folder"), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    }

    /// A recording into a folder: one line naming the folder and what it is.
    @Test func aRecordingIntoAFolderIsSaidToBe() async throws {
        let folder = try TemporaryDirectory()
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let tone = try await Fixtures.make(fixture.name, fixture.arguments)
        try FileManager.default.createDirectory(atPath: folder.path + "/out.txt", withIntermediateDirectories: true)
        let result = try await Mediaplay.runInProcess(["play", tone, "--untimed", "--audio-out", folder.path + "/out.txt"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write \(folder.path)/out.txt: it is a folder"), "\(result.stderr)")
    }

    /// A download whose redirect is refused (to a local file) leaves no
    /// empty part file in the cache.
    @Test func aRefusedRedirectLeavesNoPartFile() async throws {
        let server = try TestHTTPServer()
        server.redirect("/song.mp3", to: "file:///etc/passwd")
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", #"[{"type": "audio", "title": "Song", "url": "\#(server.url("/song.mp3"))"}]"#)
        let result = try await home.runInProcess("fetch", "1")
        #expect(result.status != 0, "\(result.stderr)")
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: home.folder.path + "/cache/mediaplay/entries")) ?? []
        #expect(entries.allSatisfy { !$0.hasSuffix(".part") }, "\(entries)")
    }

    /// A feed server that trickles is given up on at `[network] timeout`
    /// (it kept `list` waiting as long as it trickled).
    @Test(.timeLimit(.minutes(1))) func aTricklingFeedIsGivenUpOnAtTheDeadline() async throws {
        let server = try TestHTTPServer()
        server.serve("/feed.xml", bytes: Array(String(repeating: "<rss>", count: 400).utf8))
        server.throttle("/feed.xml", bytesPerSecond: 20)
        let home = try await UserHome()
        _ = try home.folder.write("config/mediaplay/config.toml", "[network]\ntimeout = 2\n")
        let result = try await Mediaplay.runInProcess(
            ["list", "--feed", server.url("/feed.xml").absoluteString], environment: home.environment.merging(["XDG_CONFIG_HOME": home.folder.path + "/config"]) { $1 }
        )
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("no whole answer within 2 s"), "\(result.stderr)")
    }
}
