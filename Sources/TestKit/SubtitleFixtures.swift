import Foundation

/// Subtitles for the tests: the same cues as SubRip, WebVTT and ASS files,
/// and videos that carry them (made by the ffmpeg CLI). The second cue has
/// two lines; the first has tags a terminal must not show.
public enum SubtitleFixtures {
    public static let srt = """
        1
        00:00:00,500 --> 00:00:01,500
        Hello <b>world</b>

        2
        00:00:01,800 --> 00:00:02,600
        Two lines
        second line

        """

    public static let vtt = """
        WEBVTT

        00:00:00.500 --> 00:00:01.500
        Hello <b>world</b>

        00:00:01.800 --> 00:00:02.600
        Two lines
        second line

        """

    public static let ass = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 320
        PlayResY: 240

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,Hello {\\b1}world{\\b0}
        Dialogue: 0,0:00:01.80,0:00:02.60,Default,,0,0,0,,{\\i1}Two lines{\\i0}\\Nsecond line

        """

    /// The cues every file above holds: start, end, the text a terminal shows.
    public static let cues: [(start: Double, end: Double, text: String)] = [(0.5, 1.5, "Hello world"), (1.8, 2.6, "Two lines\nsecond line")]

    /// A subtitle file of `format` (srt, vtt, ass) in the fixtures folder.
    public static func file(_ format: String) throws -> String {
        let path = Fixtures.folder + "/cues.\(format)"
        if !FileManager.default.fileExists(atPath: path) {
            let text = format == "srt" ? srt : format == "vtt" ? vtt : ass
            let temporary = path + ".\(UUID().uuidString)"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else { throw Fixtures.FixtureError(message: "cannot store \(path)") }
        }
        return path
    }

    /// A 3 s 320×240 video (H.264 without B-frames, so packets come in
    /// time order) with a tone, no subtitles.
    public static func plainVideo() async throws -> String {
        try await Fixtures.make("subs-plain.mp4", videoAndTone + ["-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p", "-c:a", "aac"])
    }

    /// The video with the cues as a track of `codec` (mov_text in MP4; subrip,
    /// ass or webvtt in Matroska), language English.
    public static func video(with codec: String) async throws -> String {
        let input = try file(codec == "ass" ? "ass" : codec == "webvtt" ? "vtt" : "srt")
        let container = codec == "mov_text" ? "mp4" : "mkv"
        return try await Fixtures.make("subs-\(codec).\(container)", videoAndTone + ["-i", input, "-map", "0", "-map", "1", "-map", "2",
            "-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", codec, "-metadata:s:s:0", "language=eng"])
    }

    private static let videoAndTone = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i", "sine=frequency=440:duration=3"]

    /// `ffmpeg -i F -map 0:s:N -f srt -`: ffmpeg's own reading of a track,
    /// as (start, end, text with its markup removed).
    public static func ffmpegCues(_ path: String, track: Int = 0) async throws -> [(start: Double, end: Double, text: String)] {
        let result = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-map", "0:s:\(track)", "-f", "srt", "-"])
        guard result.status == 0 else { throw Fixtures.FixtureError(message: "ffmpeg could not convert \(path)'s subtitles") }
        var cues: [(Double, Double, String)] = []
        for block in String(decoding: result.stdout, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let timing = lines.firstIndex(where: { $0.contains(" --> ") }) else { continue }
            let times = lines[timing].components(separatedBy: " --> ").map(srtTime)
            let text = lines[(timing + 1)...].map { removingMarkup($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\n")
            cues.append((times[0], times[1], text))
        }
        return cues
    }

    /// "00:00:01,800" → 1.8.
    static func srtTime(_ text: String) -> Double {
        let parts = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".").split(separator: ":")
        return parts.reduce(0) { $0 * 60 + (Double($1) ?? .nan) }
    }

    /// SubRip's `<b>` and ASS's `{\an8}` taken out.
    static func removingMarkup(_ text: String) -> String {
        var out = ""
        var closing: Character?
        for character in text {
            if let end = closing {
                if character == end { closing = nil }
                continue
            }
            if character == "<" { closing = ">"; continue }
            if character == "{" { closing = "}"; continue }
            out.append(character)
        }
        return out
    }
}
