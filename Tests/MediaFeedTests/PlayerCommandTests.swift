import MediaModel
import MediaTerminal
import Testing

/// The one vocabulary: a command reads as it is typed after `mediaplay`,
/// and writes back as the same line.
@Suite struct PlayerCommandTests {
    @Test(arguments: [
        ("toggle", PlayerCommand.toggle(nil)), ("toggle 3", .toggle(.number(3))), ("play sintel", .play(.id("sintel"))),
        ("play 3 from 1:30", .play(.number(3), from: 90)), ("play from 12", .play(nil, from: 12)),
        ("pause", .pause), ("stop", .stop(nil)), ("stop 2", .stop(.number(2))),
        ("seek 90", .seek(.to(90), nil)), ("seek 1:30", .seek(.to(90), nil)), ("seek +20", .seek(.by(20), nil)),
        ("seek -10", .seek(.by(-10), nil)), ("seek 50%", .seek(.percent(50), nil)), ("seek 3 12", .seek(.to(12), .number(3))),
        ("volume 60", .volume(.to(60))), ("volume -2", .volume(.by(-2))), ("volume +5", .volume(.by(5))),
        ("mute", .mute(nil)), ("mute on", .mute(true)), ("speed 1.5", .speed(.to(1.5))), ("speed *1.1", .speed(.times(1.1))),
        ("speed reset", .speed(.reset)), ("next", .next), ("prev", .previous), ("repeat all", .setRepeat(.all)),
        ("repeat cycle", .setRepeat(nil)), ("shuffle toggle", .shuffle(nil)), ("autoplay off", .autoplay(false)), ("quit", .quit),
        ("loudness cycle", .loudness(nil)), ("loudness off", .loudness(.off)), ("loudness measured", .loudness(.measured)),
        ("subtitle next", .subtitle(.next)), ("subtitle off", .subtitle(.off)), ("subtitle no", .subtitle(.off)), ("subtitle toggle", .subtitle(.toggle)),
        ("subtitle on", .subtitle(.on)), ("subtitle 2", .subtitle(.number(2))), ("audio-track next", .audioTrack(.next)), ("audio-track 3", .audioTrack(.number(3))),
        ("sub-delay +0.1", .subtitleDelay(.by(0.1))), ("sub-delay -1.5", .subtitleDelay(.by(-1.5))), ("sub-delay 0", .subtitleDelay(.to(0))),
        // Times everywhere take H:MM:SS, M:SS or seconds, read by one parser.
        ("sub-delay -0:01.5", .subtitleDelay(.by(-1.5))), ("sub-delay 1:00", .subtitleDelay(.to(60))), ("sleep 1:30:00", .sleep(.after(5400))),
        ("sleep 45:00", .sleep(.after(2700))), ("seek +1:00", .seek(.by(60), nil)), ("seek 1:02:03", .seek(.to(3723), nil)),
    ])
    func readsAsTyped(_ line: String, _ expected: PlayerCommand) throws {
        #expect(try PlayerCommand(parsing: line) == expected)
        // And back: its text reads as the same command.
        #expect(try PlayerCommand(parsing: expected.description) == expected, "\(expected)")
    }

    @Test(arguments: ["volume 151", "volume -151", "volume -9223372036854775808", "seek 1:75", "seek 1e300", "speed 5", "speed *0", "repeat twice", "shuffle", "mute maybe", "pause 2", "",
                       "play 3 from", "play from 1:75", "play 3 4", "play 3 from 1 2",
                       "loudness", "loudness loud", "loudness on off", "subtitle", "subtitle 0", "subtitle first", "audio-track off", "audio-track",
                       "sub-delay", "sub-delay 601", "sub-delay nan", "sub-delay +inf", "sub-delay 1s"])
    func refusesWithOneLine(_ line: String) {
        #expect(throws: CommandError.self) { try PlayerCommand(parsing: line) }
    }

    @Test func aMisspeltCommandGetsTheNearest() {
        do {
            _ = try PlayerCommand(parsing: "volme 5")
            Issue.record("accepted")
        } catch {
            #expect(error.code == .unknownCommand && error.message.contains("did you mean \"volume\"?"), "\(error.message)")
        }
    }

    /// The keys are mpv's, and every binding is a command line.
    @Test func theStandardKeymap() {
        let keys = Keymap.standard
        #expect(keys.command(for: .character(" ")) == .toggle(nil))
        #expect(keys.command(for: .right) == .seek(.by(5), nil))
        #expect(keys.command(for: .character("9")) == .volume(.by(-5)))
        #expect(keys.command(for: .character(">")) == .next)
        #expect(keys.command(for: .backspace) == .speed(.reset))
        #expect(keys.command(for: .character("x")) == nil)
        // Subtitles and tracks: mpv's v, j, #, z and Z.
        #expect(keys.command(for: .character("v")) == .subtitle(.toggle) && keys.command(for: .character("j")) == .subtitle(.next))
        #expect(keys.command(for: .character("#")) == .audioTrack(.next))
        #expect(keys.command(for: .character("z")) == .subtitleDelay(.by(-0.1)) && keys.command(for: .character("Z")) == .subtitleDelay(.by(0.1)))
        #expect(Keymap.name(of: .control("x")) == "ctrl+x" && Keymap.isKeyName("ctrl+x") && Keymap.isKeyName("pgup") && !Keymap.isKeyName("ctrl+"))
    }

    /// A subtitle's text as a terminal shows it: the event's fields and ASS
    /// override tags gone, `\N` a line break, control characters made safe.
    @Test func subtitleTextLosesItsTags() {
        #expect(SubtitleText.plain(assEvent: "0,0,Default,,0,0,0,,Hello {\\b1}world{\\b0}") == "Hello world")
        #expect(SubtitleText.plain(assEvent: "3,0,Default,,0,0,0,,{\\an8\\pos(10,20)}Top, with commas\\Nand a second line") == "Top, with commas\nand a second line")
        #expect(SubtitleText.plain(assEvent: "Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,A\\hB") == "A B")
        #expect(SubtitleText.plain(assText: "Evil\u{1B}]52;c;aGk=\u{7}text") == "Evil ]52;c;aGk= text")
        #expect(SubtitleText.plain(assText: "{\\b1}{\\i1}") == "", "tags alone are nothing to show")
        #expect(SubtitleText.lines("  one \r\n\n two  ") == "one\ntwo")
    }

    /// The tracks line status prints.
    @Test func aTrackLineNamesLanguages() {
        let status = TrackStatus(
            audio: [MediaTrack(kind: .audio, number: 1, language: "en", codec: "aac"), MediaTrack(kind: .audio, number: 2, language: "de", title: "Kommentar", codec: "aac")],
            subtitles: [MediaTrack(kind: .subtitle, number: 1, language: "en", codec: "subrip", file: "movie.en.srt")], audioTrack: 2, subtitleTrack: 1, subtitleDelay: -0.3
        )
        #expect(status.line == "audio 2 (de, Kommentar) of 2 · subtitles 1 (en, movie.en.srt) of 1 · sub delay −0.3 s")
    }
}
