import Foundation
import Testing
import InProcessRunner
import TestKit

/// `mediaplay script` in virtual time: the recorded audio equals the ffmpeg
/// reference exactly across toggle, pause, resume and switching items.
@Suite struct ScriptCommandTests {
    /// A feed of local fixtures: 1 tone.wav, 2 clip.mp4, 3 tone.flac.
    static func feed(in folder: TemporaryDirectory) async throws -> String {
        let wav = try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let flac = try await Fixtures.make("tone.flac", Fixtures.audioCodecs.first { $0.name == "tone.flac" }!.arguments)
        return try folder.write("feed.json", """
            {"title": "script", "items": [
              {"type": 1, "title": "Tone", "url": "file://\(wav)"},
              {"type": 2, "title": "Clip", "url": "file://\(clip)"},
              {"type": 1, "title": "Flac", "url": "file://\(flac)"}
            ]}
            """)
    }

    @Test func togglePauseResumeAndSwitchEqualTheReference() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder)
        let script = try folder.write("play.txt", """
            toggle 1
            wait 0.5s
            toggle 1
            expect state 1 paused
            expect position 1 0.5 ±0.0001
            # paused: no media time passes
            wait 3s
            expect position 1 0.5 ±0.0001
            toggle 3
            wait 0.25s
            # switching back pauses item 3 and resumes item 1 where it was
            toggle 1
            expect state 3 paused
            wait-until ended 1
            expect position 1 2 ±0.001
            """)
        let result = try await Mediaplay.runInProcess(["script", script, "--feed", feed, "--audio-out", folder.path + "/out.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 13)
        #expect(lines.allSatisfy { $0.contains("\"ok\":true") })

        let wav = try await Fixtures.referencePCM(try await Fixtures.make("tone.wav", []))
        let flac = try await Fixtures.referencePCM(try await Fixtures.make("tone.flac", []))
        let half = 44_100 * 4 / 2
        let quarter = 44_100 * 4 / 4
        let expected = Array(wav[..<half]) + Array(flac[..<quarter]) + Array(wav[half...])
        let recorded = try Recorded.pcm(folder.path + "/out.wav")
        #expect(recorded.count == expected.count)
        let matches = recorded == expected
        #expect(matches, "the recording is the reference's pieces in the order played")
    }

    /// Runs `text` as a script over `feed`, recording with --audio-out: the
    /// PCM recorded (the WAV's data); the run must succeed.
    static func recorded(_ text: String, feed: String, in folder: TemporaryDirectory) async throws -> [UInt8] {
        let script = try folder.write("script.txt", text)
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.runInProcess(["script", script, "--feed", feed, "--audio-out", out])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: out)).dropFirst(44))
    }

    /// Volume from a script: the recording equals ffmpeg's volume filter.
    @Test func volumeFromAScriptEqualsTheReference() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder)
        let recorded = try await Self.recorded("""
            volume 40
            expect volume 40
            toggle 1
            wait-until ended 1
            """, feed: feed, in: folder)
        let wav = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        #expect(recorded == (try await Fixtures.referencePCM(try await Fixtures.make(wav.name, wav.arguments), filters: "volume=0.4")))
    }

    /// Autoplay over a picture (skipped) to the next tone: the recording is
    /// item one's PCM, then item three's, with nothing between.
    @Test func autoplayRecordsBothItemsJoinedWithNothingBetween() async throws {
        let folder = try TemporaryDirectory()
        let wav = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let flac = Fixtures.audioCodecs.first { $0.name == "tone.flac" }!
        let first = try await Fixtures.make(wav.name, wav.arguments)
        let second = try await Fixtures.make(flac.name, flac.arguments)
        let feed = try folder.write("feed.json", """
            [{"type": 1, "title": "One", "url": "file://\(first)"}, {"type": 0, "title": "Picture", "url": "file://\(first)"},
             {"type": 1, "title": "Two", "url": "file://\(second)"}]
            """)
        let recorded = try await Self.recorded("""
            autoplay on
            toggle 1
            wait-until ended 3 30s
            expect item 3
            """, feed: feed, in: folder)
        let joined = try await Fixtures.referencePCM(first) + (try await Fixtures.referencePCM(second))
        #expect(recorded == joined)
    }

    /// A script at 2× records ffmpeg's atempo=2 of the item; a change of
    /// speed while playing goes on from where the item stood.
    @Test func speedFromAScript() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder)
        let recorded = try await Self.recorded("""
            speed 2
            expect speed 2
            toggle 1
            wait-until ended 1
            """, feed: feed, in: folder)
        let wav = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        #expect(recorded == (try await Fixtures.referencePCM(try await Fixtures.make(wav.name, wav.arguments), filters: "atempo=2")))

        let change = try folder.write("change.txt", """
            toggle 3
            wait 0.5s
            speed 1.5
            expect position 3 0.5 ±0.001
            wait 0.5s
            expect position 3 1 ±0.03
            wait-until ended 3
            """)
        let changed = try await Mediaplay.runInProcess(["script", change, "--feed", feed, "--audio-out", folder.path + "/change.wav"])
        #expect(changed.status == 0, "\(changed.stdout)\(changed.stderr)")
        // Before the change, plain decoding, sample for sample.
        let flac = Fixtures.audioCodecs.first { $0.name == "tone.flac" }!
        let before = Array(try await Fixtures.referencePCM(try await Fixtures.make(flac.name, flac.arguments)).prefix(44100 / 2 * 4))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/change.wav")).dropFirst(44).prefix(before.count)) == before)
    }

    @Test func aFailedExpectationNamesItsLineAndExits1() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder)
        let script = try folder.write("fail.txt", "toggle 1\nwait 1s\nexpect state 1 paused\ntoggle 1\n")
        let result = try await Mediaplay.runInProcess(["script", script, "--feed", feed, "--clock", "virtual"])
        #expect(result.status == 1)
        #expect(result.stderr == "mediaplay: \(script):3: expected item 1 to be paused, it is playing\n")
        #expect(result.stdout.split(separator: "\n").count == 3, "no step runs after the failure")
    }

    @Test func anUnreadableScriptExits65() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder)
        let script = try folder.write("bad.txt", "toggle 1\ndance 2\n")
        let result = try await Mediaplay.runInProcess(["script", script, "--feed", feed])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("mediaplay: \(script):2: cannot read \"dance 2\""), "\(result.stderr)")
    }

    @Test func noSuchItemFails() async throws {
        let folder = try TemporaryDirectory()
        let feed = try await Self.feed(in: folder)
        let script = try folder.write("missing.txt", "toggle 9\n")
        let result = try await Mediaplay.runInProcess(["script", script, "--feed", feed, "--clock", "virtual"])
        #expect(result.status == 1)
        #expect(result.stderr.contains(":1: no item \"9\""), "\(result.stderr)")
    }
}
