import Foundation
import Testing
import TestKit

/// `mediaplay browse` in a real pseudo-terminal (tmux) at three sizes: what
/// is on the screen, what the keys do, and the terminal left as it was.
@Suite(.serialized) struct BrowseTests {
    /// The column at which `text` starts on `line` (box drawing and ASCII
    /// are one column each).
    static func column(of text: String, in line: String) -> Int? {
        guard let range = line.range(of: text) else { return nil }
        return line.distance(from: line.startIndex, to: range.lowerBound)
    }

    static func terminalRestored(_ session: TerminalSession, stty: String) async -> Bool {
        let modes = await session.modes()
        let flags = stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        return !modes.alternateScreen && modes.cursorVisible && flags.contains("icanon") && flags.contains("echo") && flags.contains("isig")
    }

    @Test(arguments: [(80, 24, 3), (40, 30, 1), (160, 40, 6)])
    func gridDetailAndQuitAtEachSize(_ size: (columns: Int, rows: Int, cellsPerRow: Int)) async throws {
        let world = try await MixedFeedHome()
        let session = try await world.browse(columns: size.columns, rows: size.rows)
        let grid = await session.waitForScreen { $0.first?.contains("Browse test feed") == true && $0.joined().contains("▄") }
        #expect(grid.matched, "the grid with pictures: \(grid.screen.joined(separator: "\n"))")
        let screen = grid.screen
        #expect(screen.count == size.rows)

        // As many cells per row as fit, the first one selected.
        let cellTops = screen[1].filter { $0 == "╭" || $0 == "┏" }.count
        #expect(cellTops == size.cellsPerRow, "cells in the first row: \(screen[1])")
        #expect(screen[1].hasPrefix("┏━ 1 · audio"))
        #expect(screen[0].hasSuffix("1/6"))

        // The long title takes two lines, the second cut with "…".
        let titleRow = try #require(screen.firstIndex { $0.contains("The test pattern, a") }, "\(screen.joined(separator: "\n"))")
        let cellColumn = try #require(Self.column(of: "The test pattern, a", in: screen[titleRow]))
        let second = String(screen[titleRow + 1].dropFirst(cellColumn))
        #expect(second.contains("…"), "second title line: \(second)")
        if size.cellsPerRow > 1 { #expect(screen.contains { $0.contains("✗ invalid") }) }
        #expect(screen.contains { $0.contains("● local") })

        // The detail view of the picture: 30:70 side by side when the
        // terminal is wide, a banner above the text when it is not.
        await session.send("Right", "i")
        let detail = await session.waitForScreen {
            $0.first?.contains("The test pattern") == true && $0.contains { $0.contains("image · item 2") } && $0.dropFirst().joined().contains("▄")
        }
        #expect(detail.matched, "\(detail.screen.joined(separator: "\n"))")
        let textRow = try #require(detail.screen.firstIndex { $0.contains("image · item 2") })
        let textColumn = Self.column(of: "image · item 2", in: detail.screen[textRow])
        if size.columns > size.rows * 2 {
            #expect(textColumn == size.columns * 30 / 100 + 2)
            #expect(textRow == 1)
            #expect(detail.screen[1...].contains { String($0.prefix(size.columns * 30 / 100)).contains("▄") }, "the picture on the left")
        } else {
            #expect(textColumn == 1)
            let bannerRows = max(3, (size.rows - 2) * 40 / 100)
            #expect(textRow == 2 + bannerRows)
            #expect(detail.screen[1...bannerRows].contains { $0.contains("▄") }, "the picture above")
        }
        #expect(detail.screen.contains { $0.contains("A picture made by ffmpeg's testsrc.") })

        // Esc goes back to the grid, q quits and leaves the terminal as it was.
        await session.send("Escape")
        let shown1 = await session.shows { $0.first?.contains("Browse test feed") == true }
        #expect(shown1)
        await session.send("q")
        let exit = try #require(await session.waitForExit(), "browse did not quit")
        #expect(exit.status == 0)
        #expect(await Self.terminalRestored(session, stty: exit.stty), "\(exit.stty)")
    }

    @Test func spinnerWhileAThrottledPictureDownloadsThenCached() async throws {
        let world = try await MixedFeedHome()
        let server = try TestHTTPServer()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: world.picture)))
        server.serve("/slow.png", bytes: bytes, etag: "\"p1\"")
        // About two seconds of download.
        server.throttle("/slow.png", bytesPerSecond: max(1024, bytes.count / 2))
        world.feed = try world.folder.write("remote.json", """
            {"title": "Remote", "items": [{"type": 0, "title": "Slow picture", "url": "\(server.url("/slow.png").absoluteString)"}]}
            """)
        let session = try await world.browse(columns: 80, rows: 24)
        let spinner = await session.waitForScreen { screen in
            screen.contains { line in line.contains("%") && Spinner.frames.contains { line.contains($0) } }
        }
        #expect(spinner.matched, "a spinner with percent: \(spinner.screen.joined(separator: "\n"))")
        let cached = await session.waitForScreen(timeout: 20) { screen in
            screen.contains { $0.contains("● cached") } && screen.joined().contains("▄")
        }
        #expect(cached.matched, "\(cached.screen.joined(separator: "\n"))")
        #expect(!cached.screen.contains { $0.contains("%") }, "the spinner is gone")
        #expect(server.getCount("/slow.png") == 1)
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
    }

    @Test func spaceTogglesPlaybackInThisProcess() async throws {
        let world = try await MixedFeedHome()
        let session = try await world.browse(columns: 80, rows: 24)
        let shown2 = await session.shows { $0.first?.contains("Browse test feed") == true }
        #expect(shown2)
        await session.send("Space")
        let playing = await session.waitForScreen { $0.contains { $0.contains("▶ 0:0") } }
        #expect(playing.matched, "\(playing.screen.joined(separator: "\n"))")
        // A second into it (the status line says so), then paused.
        let second = await session.waitForScreen { $0.contains { $0.contains("▶ 0:01") } }
        #expect(second.matched, "\(second.screen.joined(separator: "\n"))")
        await session.send("Space")
        let paused = await session.waitForScreen { $0.contains { $0.contains("⏸ 0:0") } }
        #expect(paused.matched, "\(paused.screen.joined(separator: "\n"))")
        // What reached the device is the tone's beginning, sample for sample
        // (waited for as the driver writes it).
        let reference = try await Fixtures.referencePCM(world.tone)
        try await Wait.until(changesAt: world.folder.path) { try DeviceRecording.holds(world.disk, exactly: Array(reference.prefix(44100 * 4 / 2))) }
        #expect(try DeviceRecording.holds(world.disk, exactly: Array(reference.prefix(44100 * 4 / 2))))
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)

        // The next browse shows where the tone would resume.
        let again = try await world.browse(columns: 80, rows: 24)
        let resumable = await again.waitForScreen { $0.contains { $0.contains("● local · at 0:0") } }
        #expect(resumable.matched, "\(resumable.screen.joined(separator: "\n"))")
        await again.send("q")
        #expect(await again.waitForExit()?.status == 0)
    }

    @Test func spaceTogglesTheBackgroundPlayerWhenOneRuns() async throws {
        let world = try await MixedFeedHome()
        let started = try await world.run("daemon")
        #expect(started.status == 0, "\(started.stderr)")
        let session = try await world.browse(columns: 80, rows: 24)
        let shown3 = await session.shows { $0.first?.contains("Browse test feed") == true }
        #expect(shown3)
        await session.send("Space")
        let shown4 = await session.shows { $0.contains { $0.contains("▶ 0:0") } }
        #expect(shown4)
        let status = try await world.run("status", "--json")
        let current = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["current"] as? [String: Any]
        #expect(current?["item"] as? Int == 1)
        #expect(current?["state"] as? String == "playing")
        await session.send("Space")
        let shown5 = await session.shows { $0.contains { $0.contains("⏸ 0:0") } }
        #expect(shown5)
        await session.send("q")
        #expect(await session.waitForExit()?.status == 0)
        // The background player keeps the item after browse has gone.
        #expect(try await world.run("status").stdout.hasPrefix("⏸ paused 1 \"Tone\""))
        _ = try await world.run("quit")
    }

    @Test func sigtermLeavesTheTerminalAsItWas() async throws {
        let world = try await MixedFeedHome()
        let session = try await world.browse(columns: 80, rows: 24)
        let shown6 = await session.shows { $0.first?.contains("Browse test feed") == true }
        #expect(shown6)
        #expect(await session.modes().alternateScreen)
        #expect(await !session.modes().cursorVisible)
        let pid = try #require(await session.programPID())

        // (Ctrl-Z is not driven here: tmux 3.3 at times stops reading a pane
        // whose program stopped itself, so the restore it wrote is not seen.)
        kill(pid, SIGTERM)
        let exit = try #require(await session.waitForExit(), "browse did not end on SIGTERM")
        #expect(exit.status == 143)
        #expect(await Self.terminalRestored(session, stty: exit.stty), "\(exit.stty)")
    }

    /// A library of the media stack that cannot be loaded once browse has
    /// the terminal (a broken install): one line and exit 69, and the
    /// terminal left as it was.
    @Test func aMissingMediaLibraryLeavesTheTerminalAsItWas() async throws {
        let world = try await MixedFeedHome()
        // An empty file where the scaler's library is looked for first
        // (under each name the system knows it by): dlopen refuses it when
        // the first picture is scaled for the grid.
        let known = String(decoding: try await Fixtures.run("/sbin/ldconfig", ["-p"]).stdout, as: UTF8.self)
        let sonames = Set(known.split(separator: "\n").compactMap { line -> String? in
            let name = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
            return name.hasPrefix("libswscale.so.") && name.dropFirst("libswscale.so.".count).allSatisfy(\.isNumber) ? name : nil
        })
        try #require(!sonames.isEmpty, "ldconfig knows no libswscale: \(known)")
        let broken = try TemporaryDirectory()
        for soname in sonames { _ = try broken.write(soname, "") }
        var environment = world.environment
        environment["LD_LIBRARY_PATH"] = broken.path
        let session = try await TerminalSession(columns: 80, rows: 24, [Mediaplay.executable, "browse", "--images", "blocks"], environment: environment)
        let exit = try #require(await session.waitForExit(), "browse did not end")
        #expect(exit.status == 69)
        #expect(await Self.terminalRestored(session, stty: exit.stty), "\(exit.stty)")
        let screen = await session.screen().joined(separator: "\n")
        #expect(screen.contains("mediaplay: cannot load"), "\(screen)")
    }
}

/// The spinner's frames, as MediaTerminal draws them.
enum Spinner {
    static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
}

extension BrowseTests {
    /// Where there is no window, a video plays in its own cell: its frames
    /// replace the thumbnail while it plays, and the thumbnail comes back
    /// when it ends.
    @Test func aVideoPlaysInItsCellWithoutAWindow() async throws {
        let world = try await MixedFeedHome()
        let session = try await world.browse(columns: 80, rows: 24)
        let grid = await session.waitForScreen { $0.joined().contains("3 · video") && $0.joined().contains("▄") }
        #expect(grid.matched)
        // The third cell's picture rows: from under its top edge to its title.
        func cell(_ screen: [String]) -> [String] {
            guard let top = screen.firstIndex(where: { $0.contains("3 · video") }), let start = Self.column(of: "3 · video", in: screen[top]),
                  let title = screen[top...].firstIndex(where: { $0.contains("Clip") }) else { return [] }
            // Inside the borders (the selected cell's are heavier).
            return screen[(top + 1)..<title].map { line in String(line.dropFirst(start).prefix(20)) }
        }
        let thumbnail = cell(grid.screen)
        #expect(thumbnail.joined().contains("▄"), "the thumbnail: \(thumbnail)")
        await session.send("Right")
        await session.send("Right")
        await session.send("Space")
        let playing = await session.waitForScreen { $0.joined().contains("▶ 0:0") }
        #expect(playing.matched, "\(playing.screen.joined(separator: "\n"))")
        // The cell as each new output leaves it.
        var frames: Set<[String]> = []
        await session.waitForScreen { screen in
            frames.insert(cell(screen))
            return frames.count >= 3
        }
        #expect(frames.count >= 3, "the cell shows moving frames")
        #expect(frames.contains { $0 != thumbnail }, "frames, not the thumbnail")
        // The clip lasts 2 s: then the thumbnail is back.
        let back = await session.waitForScreen(timeout: 8) { $0.joined().contains("ended") && cell($0) == thumbnail }
        #expect(back.matched, "the thumbnail after the end: \(cell(back.screen))")
        await session.send("q")
        _ = await session.waitForExit()
    }
}

extension BrowseTests {
    /// A video with no thumbnail and nothing downloaded yet has its picture's
    /// place all the same, and plays there (it showed only its title).
    @Test func aVideoWithoutAThumbnailPlaysInItsCell() async throws {
        let server = try TestHTTPServer()
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        server.serve("/clip.mp4", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: clip))))
        let world = try await MixedFeedHome()
        world.feed = try world.folder.write("bare.json", #"[{"type": "video", "title": "Bare clip", "url": "\#(server.url("/clip.mp4").absoluteString)"}]"#)
        let session = try await world.browse(columns: 80, rows: 24)
        let grid = await session.waitForScreen { $0.joined().contains("Bare clip") && $0.joined().contains("no picture") }
        #expect(grid.matched, "a place for its picture: \(grid.screen.joined(separator: "\n"))")
        await session.send("Space")
        let playing = await session.waitForScreen(timeout: 10) { $0.joined().contains("▶ 0:0") && $0.joined().contains("▄") }
        #expect(playing.matched, "its frames in the cell: \(playing.screen.joined(separator: "\n"))")
        await session.send("q")
        _ = await session.waitForExit()
    }

    /// Through the background player, a playing video's cell keeps its
    /// thumbnail and says in one line where its pictures are.
    @Test func aVideoInTheBackgroundPlayerSaysWhereItsPicturesAre() async throws {
        let world = try await MixedFeedHome()
        let started = try await world.run("daemon")
        #expect(started.status == 0, "\(started.stderr)")
        let session = try await world.browse(columns: 80, rows: 24)
        #expect(await session.shows { $0.first?.contains("Browse test feed") == true })
        await session.send("Right")
        await session.send("Right")
        await session.send("Space")
        let notice = await session.waitForScreen(timeout: 10) { screen in
            screen.joined().contains("▶ 0:0") && (screen.joined().contains("sound only") || screen.joined().contains("player's window"))
        }
        #expect(notice.matched, "\(notice.screen.joined(separator: "\n"))")
        await session.send("q")
        _ = await session.waitForExit()
        _ = try await world.run("quit")
    }
}

extension BrowseTests {
    /// `/` narrows the grid live, "2 of 6" on the status bar; the cells keep
    /// their feed numbers; Esc shows every cell again.
    @Test func slashNarrowsTheGridAsYouType() async throws {
        let world = try await MixedFeedHome()
        let session = try await world.browse(columns: 80, rows: 24)
        #expect(await session.shows { $0.first?.contains("Browse test feed") == true })
        await session.send("/")
        for key in ["t", "o", "n", "e"] { await session.send(key) }
        let narrowed = await session.waitForScreen { screen in
            screen.joined().contains("/tone") && screen.joined().contains("2 of 6") && screen.joined().contains("5 · audio") && !screen.joined().contains("3 · video")
        }
        #expect(narrowed.matched, "\(narrowed.screen.joined(separator: "\n"))")
        await session.send("Enter")
        let kept = await session.waitForScreen { $0.joined().contains("2 of 6 \"tone\"") }
        #expect(kept.matched, "\(kept.screen.joined(separator: "\n"))")
        await session.send("Escape")
        let all = await session.waitForScreen { $0.joined().contains("3 · video") && !$0.joined().contains("of 6") }
        #expect(all.matched, "\(all.screen.joined(separator: "\n"))")
        await session.send("q")
        _ = await session.waitForExit()
    }
}

extension BrowseTests {
    /// A video playing in its cell shows its subtitle as text under its
    /// picture, a two-line cue on two rows.
    @Test func aVideoInItsCellShowsItsSubtitles() async throws {
        let folder = try TemporaryDirectory()
        let video = try await SubtitleTests.withSidecar(folder)
        let world = try await MixedFeedHome()
        world.feed = try world.folder.write("movie.json", #"[{"type": "video", "title": "Movie", "url": "file://\#(video)"}]"#)
        let session = try await world.browse(columns: 80, rows: 24)
        #expect(await session.shows { $0.joined().contains("Movie") })
        await session.send("Space")
        let two = await session.waitForScreen(timeout: 10) { screen in
            guard let row = screen.firstIndex(where: { $0.contains("Two lines") }) else { return false }
            return row + 1 < screen.count && screen[row + 1].contains("second line")
        }
        #expect(two.matched, "the cue under the picture: \(two.screen.joined(separator: "\n"))")
        await session.send("q")
        _ = await session.waitForExit()
    }
}
