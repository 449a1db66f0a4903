import Foundation
@testable import MediaSession
import MediaFeed
import MediaModel
import SessionFakes
import Testing

/// Failures alone: what the status keeps and what is thrown, each named
/// as the front ends show it.
@Suite struct FailuresTests {
    let item = FeedItem(position: 5, id: "broken", title: "Broken", kind: .audio, source: .remote(URL(string: "http://media.invalid/b.mp3")!))

    @Test func aFailedStartKeepsOneWordingAndThrowsOneNamingTheItem() {
        let missing = Failures.ofStart(.missing(path: "/gone.wav"), item)
        #expect(missing.kept == CommandError(.noSuchItem, "missing: no readable file at /gone.wav"))
        #expect(missing.thrown == CommandError(.noSuchItem, "item 5: no readable file at /gone.wav"))
        let download = Failures.ofStart(.download(reason: "HTTP 404 from media.invalid"), item)
        #expect(download.kept == CommandError(.downloadFailed, "download failed: HTTP 404 from media.invalid"))
        #expect(download.thrown == CommandError(.downloadFailed, "item 5 \"Broken\": download failed: HTTP 404 from media.invalid"))
        let noCache = Failures.ofStart(.noCache, item)
        #expect(noCache.kept == nil && noCache.thrown == CommandError(.downloadFailed, "item 5 needs a download and no cache is open"))
        let textOnly = Failures.ofStart(.textOnly, item)
        #expect(textOnly.kept == nil && textOnly.thrown.code == .invalidItem)
    }

    /// A player's failure is kept for the item's status, which front ends
    /// show beside the item (`✗ failed 5 "Broken": reason`): it does not
    /// name the item again; its one line names it once, whatever it held.
    @Test func aFailedPlayerIsNamedByItsItemOnce() {
        let player = FakePlayer(key: "broken", kind: .audio, start: 0) { _ in }
        player.fail("connection reset", input: true)
        #expect(Failures.ofPlayer(player, item) == CommandError(.downloadFailed, "connection reset"))
        #expect(Failures.line(Failures.ofPlayer(player, item), of: item) == "item 5 \"Broken\": connection reset")
        #expect(Failures.line(CommandError(.downloadFailed, "item 5 \"Broken\": connection reset"), of: item) == "item 5 \"Broken\": connection reset")
        #expect(Failures.line(Failures.ofStart(.missing(path: "/gone.wav"), item).thrown, of: item) == "item 5 \"Broken\": no readable file at /gone.wav")
        #expect(Failures.line(Failures.ofStart(.missing(path: "/gone.wav"), item).kept!, of: item) == "item 5 \"Broken\": no readable file at /gone.wav")
        let decoder = FakePlayer(key: "broken", kind: .audio, start: 0) { _ in }
        decoder.fail("invalid data", input: false)
        #expect(Failures.ofPlayer(decoder, item).code == .playbackFailed)
    }

    @Test func keptUntilForgotten() {
        var failures = Failures()
        failures["a"] = CommandError(.playbackFailed, "x")
        failures["b"] = CommandError(.playbackFailed, "y")
        failures.keep { $0 == "b" }
        #expect(failures["a"] == nil && failures["b"]?.message == "y")
        failures["b"] = nil
        #expect(failures.keys.isEmpty)
    }
}
