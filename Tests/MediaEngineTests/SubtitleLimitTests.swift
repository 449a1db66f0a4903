import Foundation
@testable import MediaEngine
import MediaInterfaces
import MediaModel
import Testing
import TestKit

/// A subtitle file may come from a remote feed: what a track may cost is
/// bounded (`SubtitleLimits`), and a film's track passes unchanged.
@Suite struct SubtitleLimitTests {
    @Test func aLongTextIsCutAtACharactersEdge() {
        let long = String(repeating: "a", count: 5000)
        #expect(SubtitleLimits.cut(long) == String(repeating: "a", count: 4096) + "…")
        // A three-byte character across the edge is left out whole.
        let accented = String(repeating: "a", count: 4095) + "€€"
        #expect(SubtitleLimits.cut(accented) == String(repeating: "a", count: 4095) + "…")
        #expect(SubtitleLimits.cut("short") == "short")
    }

    /// A script of libass's default height (288).
    static let defaultScript = ScriptSize([Substring]())

    @Test func assSizesAreBoundedAndOrdinaryOnesUntouched() {
        let size = Self.defaultScript
        let huge = #"0,0,Default,,0,0,0,,{\fscx100000\fscy100000\bord9999\blur1000\be500\fax50}X"#
        #expect(AssBounds.event(huge, size: size) == #"0,0,Default,,0,0,0,,{\fscx400\fscy400\bord36\blur9\be32\fax4}X"#)
        // `\fs+N` multiplies by 1 + N/10: kept relative, the event's growth held to 2×.
        #expect(AssBounds.event(#"0,0,Default,,0,0,0,,{\fs+100\fs+100}X"#, size: size) == #"0,0,Default,,0,0,0,,{\fs+10\fs+0}X"#)
        #expect(AssBounds.event(#"0,0,Default,,0,0,0,,{\fs+2}X{\fs-2}Y"#, size: size) == #"0,0,Default,,0,0,0,,{\fs+2}X{\fs-2}Y"#)
        // Numbers read as libass reads them: exponents, signs, spaces.
        for written in [#"\fscx1e5"#, #"\fscx+100000"#, #"\fscx 100000"#, #"\ fscx100000"#] {
            let bounded = AssBounds.event("0,0,Default,,0,0,0,,{\(written)}X", size: size)
            #expect(bounded.hasSuffix("400}X"), "\(written) → \(bounded)")
        }
        // A drawing's commands are not text: a long one is kept whole.
        let drawing = #"0,0,Default,,0,0,0,,{\p1}"# + String(repeating: "l 10 10 ", count: 1000) + #"{\p0}"#
        #expect(AssBounds.event(drawing, size: size) == drawing)
        #expect(AssBounds.event(#"0,0,Default,,0,0,0,,{\fs90000}X"#, size: size) == #"0,0,Default,,0,0,0,,{\fs576}X"#)
        let ordinary = #"0,0,Default,,0,0,0,,{\an8\fs24\fscx120\bord2.5\t(0,500,\fscx110)\pos(10,20)}Hello {\i1}there{\i0}, \N world"#
        #expect(AssBounds.event(ordinary, size: size) == ordinary)
        // Braces only open tags: a backslash in the text stays as written.
        #expect(AssBounds.event(#"0,0,Default,,0,0,0,,\fscx100000 is text"#, size: size) == #"0,0,Default,,0,0,0,,\fscx100000 is text"#)
        // At most 64 lines to lay out.
        let lines = AssBounds.event("0,0,Default,,0,0,0,," + String(repeating: #"a\N"#, count: 1000), size: size)
        #expect(lines == "0,0,Default,,0,0,0,," + String(repeating: #"a\N"#, count: 63) + "a…")
    }

    /// libass reads a script's height as C's atoi does, and completes a
    /// missing side as it does: the bounds follow what it draws with.
    @Test func aScriptsHeightIsReadAsLibassReadsIt() {
        func height(_ text: String) -> Double { ScriptSize(text.split(separator: "\n")).height }
        #expect(height("") == 288)
        #expect(height("PlayResX: 1280") == 1024)
        #expect(height("PlayResX: 640") == 480)
        #expect(height("PlayResY: 2?40") == 2)
        #expect(height("PlayResX: \u{0F} 320\nPlayResY: 1080") == 1080)
        #expect(height("PlayResY: -5") == 288)
        // A script 2 high: a font of 30 is 15 screens tall; held to twice its height.
        let tiny = ScriptSize(["PlayResY: 2"])
        #expect(AssBounds.event(#"0,0,Default,,0,0,0,,{\fs30\bord3\blur2}X"#, size: tiny) == #"0,0,Default,,0,0,0,,{\fs4\bord0.25\blur0.0625}X"#)
    }

    @Test func aHeadersStylesAreBoundedByItsScriptHeight() {
        let header = """
        [Script Info]
        PlayResX: 640
        PlayResY: 360

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, ScaleX, ScaleY, Spacing, Outline, Shadow
        Style: Default,Arial,20,100,100,0,2,0
        Style: Big,Arial,100000,100000,50,-9999,9999,3
        """
        let bounded = AssBounds.header(header)
        #expect(bounded.contains("Style: Default,Arial,20,100,100,0,2,0"))
        // The script is 360 high: fonts up to 720, outlines and shadows up to 45, spacing up to 90.
        #expect(bounded.contains("Style: Big,Arial,720,400,50,-90,45,3"), "\(bounded)")
        // A script claiming a picture 2 high is read as one 72 high: libass
        // would scale its default style's font by the frame over 2.
        #expect(AssBounds.header("[Script Info]\nPlayResX: 320\nPlayResY: 2\u{01}") == "[Script Info]\nPlayResX: 320\nPlayResY: 72")
        #expect(AssBounds.header("[Script Info]\nPlayResX: 3") == "[Script Info]\nPlayResX: 96")
        // Lines as libass splits them: CRLF, a lone CR, a byte order mark.
        #expect(AssBounds.header("[Script Info]\r\nPlayResY: 2\r\n").contains("PlayResY: 72"))
        #expect(AssBounds.header("[Script Info]\rPlayResY: 2").contains("PlayResY: 72"))
        #expect(AssBounds.header("[Script Info]\n\u{FEFF}PlayResY: 2").contains("PlayResY: 72"))
        // No Format line: libass's own; a value with letters after it read as strtod reads it.
        let unformatted = AssBounds.header("[V4+ Styles]\nStyle: Default,Arial,100000px,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,2,10,10,10,1")
        #expect(unformatted.contains("Style: Default,Arial,576,"), "\(unformatted)")
        // Events left in the header (FFmpeg's reader could not parse them) are dropped.
        #expect(AssBounds.header("[Events]\nFormat: Start, Layer\nDialogue: 0:00:00.00,0") == "[Events]\nFormat: Start, Layer")
        let ordinary = header.replacingOccurrences(of: "\nStyle: Big,Arial,100000,100000,50,-9999,9999,3", with: "")
        #expect(AssBounds.header(ordinary) == ordinary)
    }

    @Test func cuesShowingAtOnceAreCountedAndATracksCuesLimited() throws {
        var budget = SubtitleBudget()
        var taken = 0
        for _ in 0..<1000 where try budget.take(start: 0, end: 3) { taken += 1 }
        #expect(taken == SubtitleLimits.cuesAtOnce)
        // Once those end, later cues are taken again.
        #expect(try budget.take(start: 3, end: 4))
        // One after another: every cue, up to the track's limit.
        var sequential = SubtitleBudget()
        for index in 0..<SubtitleLimits.trackCues {
            #expect(try sequential.take(start: Double(index), end: Double(index) + 0.5), "cue \(index)")
        }
        #expect(throws: SubtitleLimitError.self) { try sequential.take(start: 1e9, end: 1e9 + 1) }
        var bytes = SubtitleBudget()
        try bytes.read(bytes: SubtitleLimits.trackBytes)
        #expect(throws: SubtitleLimitError.self) { try bytes.read(bytes: 1) }
    }

    /// `text` in a file of a folder of its own, removed with the folder.
    static func write(_ name: String, _ text: String) throws -> (folder: TemporaryDirectory, path: String) {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (folder, path)
    }

    /// An 8 MiB line: one cue, its text cut; drawn into every frame.
    @Test func anEightMebibyteLineIsCutAndDrawn() async throws {
        let (folder, file) = try Self.write("long.srt", "1\n00:00:00,000 --> 00:00:03,000\n" + String(repeating: "word ", count: (8 << 20) / 5) + "\n\n")
        defer { withExtendedLifetime(folder) {} }
        let cues = try SubtitleTests.ourCues(file, subtitleFiles: [file])
        #expect(cues.count == 1)
        #expect(cues.first?.text?.utf8.count == SubtitleLimits.shownTextBytes + "…".utf8.count)
        let video = try await SubtitleFixtures.plainVideo()
        let plain = try await Fixtures.referenceFrameHashes(video)
        let ours = try await SubtitleTests.recordedFrames(video, subtitleFiles: [file])
        #expect(ours.count == plain.count && zip(ours, plain).allSatisfy { $0 != $1 }, "every frame recorded, with the text drawn")
        // Drawn as ffmpeg's subtitles filter draws the cue cut where ours is cut
        // (its first 4096 characters and "…"): ffmpeg itself has no bound.
        let (cutFolder, cut) = try Self.write("cut.srt", "1\n00:00:00,000 --> 00:00:03,000\n" + String(repeating: "word ", count: 819) + "w…\n\n")
        defer { withExtendedLifetime(cutFolder) {} }
        #expect(ours == (try await Fixtures.referenceFrameHashes(video, filters: "subtitles=\(cut)")), "frame for frame, as ffmpeg draws the cut cue")
    }

    /// 20,000 cues at once: the first `cuesAtOnce` show.
    @Test func twentyThousandCuesAtOnceAreHeldToTheLimit() async throws {
        var text = ""
        for index in 1...20_000 { text += "\(index)\n00:00:00,000 --> 00:00:03,000\nline \(index)\n\n" }
        let (folder, file) = try Self.write("many.srt", text)
        defer { withExtendedLifetime(folder) {} }
        let cues = try SubtitleTests.ourCues(file, subtitleFiles: [file])
        #expect(cues.count == SubtitleLimits.cuesAtOnce)
        let video = try await SubtitleFixtures.plainVideo()
        let plain = try await Fixtures.referenceFrameHashes(video)
        let ours = try await SubtitleTests.recordedFrames(video, subtitleFiles: [file])
        #expect(ours.count == plain.count && zip(ours, plain).allSatisfy { $0 != $1 })
        // Drawn as ffmpeg's subtitles filter draws the first 256 cues alone.
        var first = ""
        for index in 1...SubtitleLimits.cuesAtOnce { first += "\(index)\n00:00:00,000 --> 00:00:03,000\nline \(index)\n\n" }
        let (firstFolder, kept) = try Self.write("first.srt", first)
        defer { withExtendedLifetime(firstFolder) {} }
        #expect(ours == (try await Fixtures.referenceFrameHashes(video, filters: "subtitles=\(kept)")), "frame for frame, as ffmpeg draws the cues kept")
    }

    /// A file past the size limit is refused before FFmpeg reads it, in one line.
    @Test func aFileLargerThanTheLimitIsRefused() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/big.srt"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, off_t(SubtitleLimits.fileBytes + 1)) == 0)
        #expect {
            _ = try SubtitleStreams.file(path, first: 1, language: nil)
        } throws: { error in
            "\(error)" == "cannot read the subtitles big.srt: it is larger than 32 MiB"
        }
    }

    /// What a track held is let go when its item ends.
    @Test func aTracksCuesAreLetGoWhenTheItemEnds() async throws {
        let video = try await SubtitleFixtures.plainVideo()
        let file = try SubtitleFixtures.file("srt")
        var options = PlaybackOptions()
        options.clock = .untimed
        options.audio = false
        options.subtitleFiles = [SidecarSubtitles.File(path: file)]
        let folder = try TemporaryDirectory()
        let player = Player(path: video, audioSink: nil, videoSink: try FrameHashSink(path: folder.path + "/out"), options: options)
        player.play()
        #expect(await offPool { player.waitUntilFinished() } == .ended)
        #expect(player.condition.withLock { player.subtitleTimeline == nil && player.subtitleAss == nil })
    }
}
