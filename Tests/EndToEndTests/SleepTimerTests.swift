import Foundation
import Testing
import InProcessRunner
import TestKit

/// The sleep timer in virtual time: the sound fades out and playback
/// pauses on the right sample, as ffmpeg's afade would have it.
@Suite struct SleepTimerTests {
    @Test func sleepFadesOutAndPausesOnTheSample() async throws {
        let folder = try TemporaryDirectory()
        let tone = try await Fixtures.make("tone-4s.wav", ["-f", "lavfi", "-i", "aevalsrc=sin(330*2*PI*t)*0.4|sin(440*2*PI*t)*0.4:s=44100:d=4", "-c:a", "pcm_s16le"])
        let feed = try folder.write("feed.json", #"[{"type": "audio", "title": "Tone", "url": "file://\#(tone)"}]"#)
        let script = try folder.write("sleep.txt", """
            play 1
            wait 0.5s
            sleep 2s
            wait 3s
            expect state 1 paused
            expect position 1 2.5 ±0.001
            """)
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.runInProcess(["script", script, "--feed", feed, "--audio-out", out])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let recorded = try await Fixtures.referencePCM(out)
        // Half a second as is, then two seconds fading to silence: afade=t=out.
        let reference = try await Fixtures.referencePCM(tone, filters: "afade=t=out:st=0.5:d=2,atrim=end=2.5")
        #expect(recorded.count == reference.count, "\(recorded.count) bytes, ffmpeg \(reference.count)")
        let worst = Recorded.largestDifference(recorded, reference)
        #expect(worst <= 1, "no sample more than one step from ffmpeg's afade: \(worst)")
        // Resumed after the timer: full volume again, from where it paused.
        let again = try folder.write("resume.txt", """
            play 1
            sleep 1s
            sleep off
            wait 2s
            expect state 1 playing
            """)
        let resumed = try await Mediaplay.runInProcess(["script", again, "--feed", feed, "--audio-out", out])
        #expect(resumed.status == 0, "sleep off cancels: \(resumed.stdout)\(resumed.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(tone, filters: "atrim=end=2")), "nothing faded")
    }

    @Test func sleepCommandLines() async throws {
        let world = try await ToneFeedHome(long: true)
        let off = try await world.runInProcess("sleep", "10m")
        #expect(off.status == 69, "needs a running player: \(off.stderr)")
        #expect(try await world.runInProcess("toggle", "1").status == 0)
        let set = try await world.runInProcess("sleep", "10m")
        #expect(set.stdout.hasPrefix("💤 sleep in 10:00") || set.stdout.hasPrefix("💤 sleep in 09:5"), "\(set.stdout)\(set.stderr)")
        #expect(try await world.runInProcess("status").stdout.contains("💤 sleep in"))
        let bad = try await world.runInProcess("sleep", "soon")
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(try await world.runInProcess("sleep", "off").stdout == "💤 sleep off\n")
        _ = try await world.runInProcess("quit")
    }
}
