import MediaModel
import MediaSession
import Testing

@Suite struct ScriptParserTests {
    @Test func readsEveryStep() throws {
        let script = try Script("""
            # a comment, then a blank line

            toggle 3
            wait 1.5s
            wait 250ms
            wait-until ended song 30s
            seek 3 12
            expect state 3 paused
            expect position 3 1.5 ±0.05
            expect position 3 2 +-0.1
            status
            stop
            stop 3
            expect state 3 stopped
            volume 60
            mute
            mute off
            expect volume 60
            next
            prev
            autoplay on
            repeat all
            shuffle off
            expect item 2
            speed 1.5
            expect speed 0.75
            """)
        #expect(script.lines.map(\.step) == [
            .command(.toggle(.number(3))), .wait(seconds: 1.5), .wait(seconds: 0.25),
            .waitUntil(goal: .state(.ended), item: .id("song"), timeout: 30), .command(.seek(.to(12), .number(3))),
            .expectState(item: .number(3), state: .paused), .expectPosition(item: .number(3), seconds: 1.5, tolerance: 0.05),
            .expectPosition(item: .number(3), seconds: 2, tolerance: 0.1), .status, .command(.stop(nil)), .command(.stop(.number(3))),
            .expectState(item: .number(3), state: .stopped), .command(.volume(.to(60))), .command(.mute(nil)), .command(.mute(false)), .expectVolume(60),
            .command(.next), .command(.previous), .command(.autoplay(true)), .command(.setRepeat(.all)), .command(.shuffle(false)), .expectItem(.number(2)),
            .command(.speed(.to(1.5))), .expectSpeed(0.75),
        ])
        #expect(script.lines.map(\.number) == Array(3...26))
    }

    @Test(arguments: ["dance 1", "wait soon", "wait 1e300s", "seek 1 1e20", "wait-until playing 1 1e300", "wait-until sleeping 1", "expect state 1 asleep", "toggle 1 2", "seek 1 soon", "volume 151", "mute maybe", "expect volume loud", "repeat twice", "shuffle yes", "next 2", "speed 5", "speed fast"])
    func namesTheLineOfAMistake(_ line: String) {
        #expect(throws: Script.ParseError.self) { try Script("toggle 1\n" + line) }
        do {
            _ = try Script("toggle 1\n" + line)
        } catch {
            #expect(error.line == 2)
        }
    }
}

/// A script's durations read times as every command does: seconds, M:SS or
/// H:MM:SS, with its own 1.5s and 500ms besides.
@Suite struct ScriptTimeTests {
    @Test func durationsTakeMinutesAndSeconds() throws {
        let script = try Script("wait 1:30\nwait-until ended 1 2:00\nwait 500ms\n")
        #expect(script.lines.map(\.step) == [.wait(seconds: 90), .waitUntil(goal: .state(.ended), item: .number(1), timeout: 120), .wait(seconds: 0.5)])
        #expect(throws: (any Error).self) { try Script("wait 1:75\n") }
    }
}
