import Foundation
import TestKit

/// Hostile subtitle files on a 3 s 640×360 clip, drawn into every frame of a
/// recording (`--video-out`, libass and the blend), beside ffmpeg's own
/// `subtitles` filter on the same file (`ffmpeg -vf subtitles=F -f null -`),
/// which has no bounds: wall time and peak RSS of each, ffmpeg cut off at
/// 120 s. The shapes: a film's track, one 8 MiB line, 20,000 cues at once,
/// `\fscx100000`, a script claiming a picture 2 high, and a million cues.
func hostileSubtitlesBenchmark(runs: Int) async throws {
    let clip = try await Fixtures.make("bench-subtitles-640x360-3s.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=3",
        "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
        "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
    ])
    let folder = try TemporaryDirectory()
    func write(_ name: String, _ text: String) throws -> String {
        let path = folder.path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
    let header = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: %@
        PlayResY: %@

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,Sans,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,2,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
    var film = "", many = "", million = ""
    for index in 0..<3 { film += "\(index + 1)\n00:00:0\(index),000 --> 00:00:0\(index),900\nA line of a film's subtitles\nand its second line\n\n" }
    for index in 1...20_000 { many += "\(index)\n00:00:00,000 --> 00:00:03,000\nline \(index)\n\n" }
    for index in 0..<1_000_000 {
        let start = index * 3 / 1000
        million += String(format: "%d\n00:00:%02d,%03d --> 00:00:%02d,%03d\nc%d\n\n", index + 1, (start / 1000) % 60, start % 1000, ((start + 3) / 1000) % 60, (start + 3) % 1000, index)
    }
    let shapes: [(name: String, path: String)] = [
        ("a film's track (3 cues)", try write("film.srt", film)),
        ("one 8 MiB line", try write("long.srt", "1\n00:00:00,000 --> 00:00:03,000\n" + String(repeating: "word ", count: (8 << 20) / 5) + "\n\n")),
        ("20,000 cues at once", try write("many.srt", many)),
        ("`\\fscx100000\\fscy100000`", try write("scale.ass", String(format: header, "640", "360") + "Dialogue: 0,0:00:00.00,0:00:03.00,Default,,0,0,0,,{\\fscx100000\\fscy100000}X\n")),
        ("a script 2 high, `\\blur2`", try write("tiny.ass", String(format: header, "320", "2") + "Dialogue: 0,0:00:00.00,0:00:03.00,Default,,0,0,0,,{\\blur2}Big text\n")),
        ("a million cues (45 MB, refused before reading)", try write("million.srt", million)),
    ]
    /// Wall seconds and peak RSS (MiB) of one run; nil when cut off at 120 s.
    func run(_ command: [String]) throws -> (wall: Double, rssMiB: Double)? {
        let times = folder.path + "/time.txt"
        // timeout inside time: the program itself is ended at 120 s, and its
        // peak RSS is still counted (time waits for timeout, timeout for it).
        let child = try ChildProcess("/usr/bin/time", ["-o", times, "-f", "%e %M", "/usr/bin/timeout", "-s", "KILL", "120"] + command,
                                     environment: ProcessInfo.processInfo.environment, stdin: "/dev/null", stdout: "/dev/null", stderr: "/dev/null")
        let status = child.waitUntilExit()
        // 137: killed at the limit.
        guard ChildProcess.code(status) != 137 else { return nil }
        let fields = ((try? String(contentsOfFile: times, encoding: .utf8)) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        guard fields.count >= 2 else { return nil }
        return (fields[fields.count - 2], fields[fields.count - 1] / 1024)
    }
    print("Hostile subtitles on a 3 s 640×360 clip, every frame drawn: medians of \(runs) (ffmpeg cut off at 120 s)")
    print("")
    print("| subtitle file | mediaplay wall | mediaplay peak RSS | ffmpeg `subtitles` wall | ffmpeg peak RSS |")
    print("|---|---|---|---|---|")
    // The slowest and the largest shape for us, with ffmpeg's figure on the same file.
    var worstWall = (ours: 0.0, theirs: nil as Double?, shape: ""), worstRSS = (ours: 0.0, theirs: nil as Double?, shape: "")
    // ffmpeg's largest peak among the files it finished (when it did not finish ours).
    var theirLargestRSS = 0.0
    for shape in shapes {
        var ours: [(wall: Double, rssMiB: Double)] = []
        var theirs: [(wall: Double, rssMiB: Double)?] = []
        for _ in 0..<runs {
            guard let mine = try run([mediaplay, "play", clip, "--sub-file", shape.path, "--untimed", "--audio-out", "/dev/null", "--video-out", "/dev/null"]) else {
                fatalError("mediaplay did not finish \(shape.name) within 120 s")
            }
            ours.append(mine)
            theirs.append(try run(["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-i", clip, "-vf", "subtitles=\(shape.path)", "-f", "null", "-"]))
        }
        let wall = median(ours.map(\.wall)), rss = median(ours.map(\.rssMiB))
        let finished = theirs.compactMap { $0 }
        let complete = finished.count == theirs.count
        if wall >= worstWall.ours { worstWall = (wall, complete ? median(finished.map(\.wall)) : nil, shape.name) }
        if rss >= worstRSS.ours { worstRSS = (rss, complete ? median(finished.map(\.rssMiB)) : nil, shape.name) }
        if complete { theirLargestRSS = max(theirLargestRSS, median(finished.map(\.rssMiB))) }
        let ffmpeg = finished.count == theirs.count
            ? String(format: "%.2f s | %.0f MiB", median(finished.map(\.wall)), median(finished.map(\.rssMiB)))
            : "> 120 s | —"
        print(String(format: "| %@ | %.2f s | %.0f MiB | %@ |", shape.name, wall, rss, ffmpeg))
    }
    // ffmpeg cut off at 120 s counts as 120 s in the ratio (it took longer).
    headline(
        "hostile subtitles, slowest of six files on a 3 s clip (wall)", mediaplay: String(format: "%.2f s", worstWall.ours),
        anchor: worstWall.theirs.map { String(format: "ffmpeg subtitles %.2f s", $0) } ?? "ffmpeg subtitles > 120 s",
        ratio: worstWall.ours / (worstWall.theirs ?? 120), target: "≤ 20 s"
    )
    headline(
        "hostile subtitles, largest of six files on a 3 s clip (peak RSS)", mediaplay: String(format: "%.0f MiB", worstRSS.ours),
        anchor: worstRSS.theirs.map { String(format: "ffmpeg subtitles %.0f MiB", $0) } ?? String(format: "ffmpeg subtitles, largest it finished, %.0f MiB", theirLargestRSS),
        ratio: worstRSS.ours / (worstRSS.theirs ?? max(theirLargestRSS, 1)), target: "≤ 1 GiB"
    )
    print("")
}
