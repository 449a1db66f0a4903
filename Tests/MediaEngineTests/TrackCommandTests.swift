import Foundation
import MediaEngine
import MediaModel
import Testing
import TestKit

/// The track commands on a file that has no other track: a track the item
/// does not have, exit 66 as their help says (it was 64, a usage error).
@Suite struct TrackCommandTests {
    @Test func noOtherTrackIsATrackTheItemDoesNotHave() async throws {
        let tone = try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
        let folder = try TemporaryDirectory()
        var options = PlaybackOptions()
        // Nothing plays unless the test says: it stays open.
        options.clock = .virtual
        let player = Player(path: tone, audioSink: WAVFileSink(path: folder.path + "/out.wav"), videoSink: nil, options: options)
        let events = player.events()
        player.play()
        for await event in events {
            if case .opened = event { break }
        }
        #expect(throws: CommandError(.noSuchItem, "the current item has one audio track: no other to switch to")) { try player.changeTracks(.audioTrack(.next)) }
        #expect(throws: CommandError(.noSuchItem, "the current item has no subtitles")) { try player.changeTracks(.subtitle(.next)) }
        player.stop()
        _ = await offPool { player.waitUntilFinished() }
    }
}
