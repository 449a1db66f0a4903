import Foundation
import Testing
import TestKit

/// Video in the terminal: the frames handed to chafa against ffmpeg's own
/// scaling, and `play --vo terminal` in tmux (a real pseudo-terminal):
/// moving pictures, a pause that holds them, the terminal left as it was.
@Suite(.serialized) struct TerminalVideoTests {
    /// 320×240, 25 fps, 6 s with a tone: long enough to pause and resume.
    static func clip() async throws -> String {
        try await Fixtures.make("terminal-clip-6s.mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:duration=6",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast", "-c:a", "aac", "-shortest",
        ])
    }

    /// The RGBA frames handed to chafa equal
    ///   ffmpeg -i F -map 0:v -vf scale=W:H:flags=bilinear,format=rgba -f framemd5 -
    /// frame for frame, W×H being the picture's size in the terminal: all but
    /// the last row and column, one pixel per half cell in blocks, the aspect
    /// kept. For 320×240 that is 61×46 at 80×24 and 117×88 at 160×45.
    @Test(arguments: [(80, 24, 61, 46), (160, 45, 117, 88)])
    func scaledFramesEqualFFmpegsScale(_ columns: Int, _ rows: Int, _ width: Int, _ height: Int) async throws {
        let clip = try await Self.clip()
        let folder = try TemporaryDirectory()
        let hashes = folder.path + "/frames.txt"
        let result = try await Mediaplay.run(
            ["play", clip, "--vo", "terminal", "--images", "blocks", "--video-out", hashes, "--no-audio", "--untimed"],
            environment: ["COLUMNS": String(columns), "LINES": String(rows)]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let ours = try String(contentsOfFile: hashes, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ")[1] }
        let reference = try await Fixtures.referenceFrameHashes(clip, filters: "scale=\(width):\(height):flags=bilinear,format=rgba")
        #expect(ours.count == 150)
        #expect(ours.map(String.init) == reference, "the scaled frames are ffmpeg's")
    }

    /// A portrait video (stored 160×120, shown turned a quarter clockwise):
    /// turned upright before scaling, as ffmpeg's autorotation does, so its
    /// 35×46 frames at 80×24 equal
    ///   ffmpeg -i F -map 0:v -vf scale=35:46:flags=bilinear,format=rgba -f framemd5 -
    @Test func aRotatedVideoIsScaledUprightAsFFmpegDoes() async throws {
        let portrait = try await Fixtures.portraitVideo()
        let folder = try TemporaryDirectory()
        let hashes = folder.path + "/frames.txt"
        let result = try await Mediaplay.run(
            ["play", portrait, "--vo", "terminal", "--images", "blocks", "--video-out", hashes, "--no-audio", "--untimed"],
            environment: ["COLUMNS": "80", "LINES": "24"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let ours = try String(contentsOfFile: hashes, encoding: .utf8).split(separator: "\n").map { String($0.split(separator: " ")[1]) }
        let reference = try await Fixtures.referenceFrameHashes(portrait, filters: "scale=35:46:flags=bilinear,format=rgba")
        #expect(!ours.isEmpty && ours == reference, "the upright frames are ffmpeg's")
    }

    @Test(arguments: [(80, 24), (160, 45)])
    func picturesMoveHoldWhenPausedAndTheTerminalIsRestored(_ columns: Int, _ rows: Int) async throws {
        let clip = try await Self.clip()
        let terminal = try await TerminalSession(
            columns: columns, rows: rows, [Mediaplay.executable, "play", clip, "--vo", "terminal", "--images", "blocks"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]
        )
        // Playing: a picture, then another.
        let first = await terminal.waitForScreen { $0.last?.hasPrefix("▶ 00:0") == true && $0.dropLast().contains { $0.contains("▄") } }
        #expect(first.matched, "a picture and the status line: \(first.screen)")
        #expect(await terminal.modes().alternateScreen, "pictures in the alternate screen")
        // The pictures' rows, colours included (half blocks differ in colour only).
        func picture() async -> [String] { Array(await terminal.screen(colors: true).dropLast()) }
        let before = await picture()
        // Looked at every 50 ms, not at each output: the layout is checked
        // on what this finds, and the screen taken as soon as tmux's copy
        // grows can be a frame half written (once a line reached the last
        // column there). No event says a frame is whole.
        var moved = false
        for _ in 0..<60 where !moved {
            try await Task.sleep(for: .milliseconds(50))
            moved = await picture() != before
        }
        #expect(moved, "successive pictures differ")
        // Every row fits: the last column stays empty, the status line is the bottom row.
        let shown = await terminal.screen()
        #expect(shown.count == rows)
        #expect(shown.allSatisfy { $0.count < columns }, "no line reaches the last column")

        // Paused: the picture holds.
        await terminal.send("Space")
        let paused = await terminal.waitForScreen(timeout: 3) { $0.last?.hasPrefix("⏸") == true }
        #expect(paused.matched, "\(paused.screen)")
        // Still pictures are the absence of events, so they are watched for
        // a while: a frame already on its way when the pause came may land
        // first (300 ms), and then nothing moves (600 ms).
        try await Task.sleep(for: .milliseconds(300))
        let held = await picture()
        try await Task.sleep(for: .milliseconds(600))
        #expect(await picture() == held, "nothing moves while paused")

        // Resumed: it moves again.
        await terminal.send("Space")
        #expect(await terminal.shows(timeout: 3) { $0.last?.hasPrefix("▶") == true }, "playing again")
        let movedAgain = await terminal.waitForScreen(colors: true) { Array($0.dropLast()) != held }.matched
        #expect(movedAgain, "moves again")

        // q: the terminal as it was.
        await terminal.send("q")
        let exit = await terminal.waitForExit()
        #expect(exit?.status == 0)
        #expect(exit?.stty.contains(" icanon") == true && exit?.stty.contains(" echo ") == true, "cooked mode again")
        let modes = await terminal.modes()
        #expect(!modes.alternateScreen && modes.cursorVisible)
    }

    /// SIGTERM and the video's own end restore the terminal too.
    @Test func sigtermAndTheEndRestoreTheTerminal() async throws {
        let short = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let ended = try await TerminalSession(
            columns: 80, rows: 24, [Mediaplay.executable, "play", short, "--vo", "terminal", "--images", "blocks"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]
        )
        #expect(await ended.shows { $0.dropLast().contains { $0.contains("▄") } }, "pictures first")
        #expect(await ended.waitForExit()?.status == 0)
        var modes = await ended.modes()
        #expect(!modes.alternateScreen && modes.cursorVisible, "restored at the end")

        let terminal = try await TerminalSession(
            columns: 80, rows: 24, [Mediaplay.executable, "play", try await Self.clip(), "--vo", "terminal", "--images", "blocks"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]
        )
        #expect(await terminal.shows { $0.dropLast().contains { $0.contains("▄") } })
        let pid = try #require(await terminal.programPID())
        kill(pid, SIGTERM)
        let exit = await terminal.waitForExit()
        #expect(exit?.status == 128 + SIGTERM, "a signal's exit status")
        #expect(exit?.stty.contains(" icanon") == true)
        modes = await terminal.modes()
        #expect(!modes.alternateScreen && modes.cursorVisible, "restored after SIGTERM")
    }

    /// A picture shows in the terminal where there is no window, until q.
    @Test func aPictureShowsInTheTerminal() async throws {
        let picture = try await Fixtures.make("picture.png", Fixtures.images[0].arguments)
        let terminal = try await TerminalSession(columns: 80, rows: 24, [Mediaplay.executable, "play", picture, "--images", "blocks"], environment: [:])
        #expect(await terminal.shows { $0.dropLast().filter { $0.contains("▄") }.count > 10 }, "the picture, with --vo auto and no display")
        await terminal.send("q")
        #expect(await terminal.waitForExit()?.status == 0)
        #expect(await !terminal.modes().alternateScreen)
    }
}

extension TerminalVideoTests {
    /// `>` in `play` goes on to the feed's next item and keeps playing it
    /// (it used to end `play`: the item skipped stopped first); `<` comes back.
    @Test func nextAndPreviousKeysInPlayMoveThroughTheFeed() async throws {
        let home = try await UserHome()
        let tone = try await Fixtures.make("tone-30s.wav", ["-f", "lavfi", "-i", "sine=duration=30", "-c:a", "pcm_s16le"])
        home.feed = try home.folder.write("feed.json", """
            [{"type": 1, "title": "First tone", "url": "file://\(tone)"}, {"type": 1, "title": "Second tone", "url": "file://\(tone)"}]
            """)
        var environment = home.environment
        environment["SDL_DISKAUDIOFILE"] = "/dev/null"
        let terminal = try await TerminalSession(columns: 100, rows: 10, [Mediaplay.executable, "play", "1"], environment: environment)
        #expect(await terminal.shows { $0.joined().contains("▶") && $0.joined().contains("First tone") })
        await terminal.send(">")
        let moved = await terminal.waitForScreen { $0.joined().contains("▶") && $0.joined().contains("Second tone") }
        #expect(moved.matched, "\(moved.screen.joined(separator: "\n"))")
        // Playing on: a second of the next item on the status line.
        let goesOn = await terminal.waitForScreen { $0.joined().contains("Second tone") && $0.joined().contains("00:01") }
        #expect(goesOn.matched, "\(goesOn.screen.joined(separator: "\n"))")
        #expect(await terminal.waitForExit(timeout: 0.1) == nil, "play goes on with the next item")
        await terminal.send("<")
        #expect(await terminal.shows { $0.joined().contains("▶") && $0.joined().contains("First tone") })
        await terminal.send("q")
        let exit = await terminal.waitForExit()
        let screen = await terminal.screen().joined(separator: "\n")
        #expect(exit?.status == 0, "\(String(describing: exit)): \(screen)")
    }

    /// Subtitles as terminal text: a file beside the video, its cues on the
    /// rows under the picture (60×40: the picture leaves rows free) or over
    /// its bottom rows (80×24: it takes them all), centred, a two-line cue on
    /// two rows, tags gone, and cleared at its end; `--sid no` shows none.
    @Test(arguments: [(60, 40), (80, 24)])
    func subtitlesShowAsTextAtTheirTimes(_ columns: Int, _ rows: Int) async throws {
        let folder = try TemporaryDirectory()
        let video = try await SubtitleTests.withSidecar(folder)
        let terminal = try await TerminalSession(
            columns: columns, rows: rows, [Mediaplay.executable, "play", video, "--vo", "terminal", "--images", "blocks"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]
        )
        func row(_ screen: [String], _ text: String) -> Int? { screen.firstIndex { $0.contains(text) } }
        let hello = await terminal.waitForScreen { row($0, "Hello world") != nil }
        #expect(hello.matched, "the first cue: \(hello.screen)")
        #expect(!hello.screen.contains { $0.contains("<b>") || $0.contains("</b>") }, "tags removed")
        let two = await terminal.waitForScreen { screen in row(screen, "Two lines").map { $0 + 1 < screen.count && screen[$0 + 1].contains("second line") } ?? false }
        #expect(two.matched, "a two-line cue on two rows: \(two.screen)")
        if let first = row(two.screen, "Two lines") {
            let line = two.screen[first]
            let start = line.distance(from: line.startIndex, to: line.range(of: "Two lines")!.lowerBound)
            #expect(abs(start - (columns - 1 - 9) / 2) <= 1, "centred: \(line)")
            let pictureRows = two.screen.dropLast().indices.filter { two.screen[$0].contains("▄") }
            if columns == 60 {
                #expect(first > (pictureRows.max() ?? 0), "under the picture")
            } else {
                #expect(first + 1 == rows - 2, "over the picture's last rows, above the status line")
            }
        }
        let cleared = await terminal.waitForScreen { row($0, "second line") == nil && $0.last?.contains("00:02") == true }
        #expect(cleared.matched, "cleared at its end: \(cleared.screen)")
        _ = await terminal.waitForExit()

        let hidden = try await TerminalSession(
            columns: columns, rows: rows, [Mediaplay.executable, "play", video, "--vo", "terminal", "--images", "blocks", "--sid", "no"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]
        )
        let shown = await hidden.waitForScreen(timeout: 4) { row($0, "Hello world") != nil || row($0, "Two lines") != nil }
        #expect(!shown.matched, "--sid no: no subtitle")
    }
}
