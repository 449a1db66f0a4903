import Foundation

/// Media fixtures made by the ffmpeg CLI at test time (lavfi sine and
/// testsrc sources), kept in a shared folder so each is made once per machine.
public enum Fixtures {
    public static let folder: String = {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("mediaplay-fixtures-v1")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Makes `name` with `ffmpeg -y <arguments> <path>` unless it exists, and
    /// returns its path. Safe when tests run in parallel: written aside, then renamed.
    public static func make(_ name: String, _ arguments: [String]) async throws -> String {
        let path = folder + "/" + name
        if FileManager.default.fileExists(atPath: path) { return path }
        let ext = (name as NSString).pathExtension
        let temporary = folder + "/.tmp-\(UUID().uuidString).\(ext)"
        let result = try await run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments + [temporary])
        guard result.status == 0 else {
            throw FixtureError(message: "ffmpeg could not make \(name): \(String(decoding: result.stderr, as: UTF8.self))")
        }
        if rename(temporary, path) != 0 { throw FixtureError(message: "cannot store fixture \(name)") }
        return path
    }

    /// `ffmpeg -i F -map 0:a:0 -f s16le -`: the reference PCM.
    /// With `start`, `ffmpeg -ss START -i F ...`: an exact input seek.
    /// `ffmpeg -i F -map 0:a:0 [-af FILTERS] -f s16le -`: the reference every
    /// decoded sample is checked against (with `filters`, e.g. "volume=0.5",
    /// the reference for the audio filter stage).
    public static func referencePCM(_ path: String, start: Double? = nil, filters: String? = nil) async throws -> [UInt8] {
        let seek = start.map { ["-ss", String(format: "%.3f", $0)] } ?? []
        let filter = filters.map { ["-af", $0] } ?? []
        return try await ReferenceDecodings.output(of: ["-v", "error", "-nostdin"] + seek + ["-i", path, "-map", "0:a:0"] + filter + ["-f", "s16le", "-"])
    }

    /// The hash column of `ffmpeg -i F -map 0:v:0 -fps_mode passthrough [-vf FILTERS] -f framemd5 -`.
    public static func referenceFrameHashes(_ path: String, start: Double? = nil, filters: String? = nil) async throws -> [String] {
        let seek = start.map { ["-ss", String(format: "%.3f", $0)] } ?? []
        let filter = filters.map { ["-vf", $0] } ?? []
        let output = try await ReferenceDecodings.output(of: ["-v", "error", "-nostdin"] + seek + ["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough"] + filter + ["-f", "framemd5", "-"])
        return String(decoding: output, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// What a tool run by `run` exited with and wrote.
    public struct ToolOutput: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: [UInt8]
    }

    /// Runs a tool and collects its output, off the cooperative pool.
    /// `environment`: the tool's whole environment (nil: this process's).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> ToolOutput {
        try await offPool { try runBlocking(executable, arguments, environment: environment) }
    }

    /// Runs a tool and waits; its output goes through files.
    private static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]?) throws -> ToolOutput {
        let scratch = try TemporaryDirectory()
        let child = try ChildProcess(
            executable, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
            stdin: "/dev/null", stdout: scratch.path + "/stdout", stderr: scratch.path + "/stderr"
        )
        let status = child.waitUntilExit()
        return ToolOutput(
            status: ChildProcess.killedBySignal(status) ? -1 : ChildProcess.code(status),
            stdout: [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/stdout"))),
            stderr: [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/stderr"))) + Array((child.hangReport ?? "").utf8)
        )
    }

    /// Makes `path` an executable file holding `contents`, written by a
    /// child (`install`), never opened for writing by this process: a
    /// program the code under test then executes could otherwise fail
    /// with ETXTBSY, while another test's child, spawned in between,
    /// still held that descriptor until its own exec.
    public static func executable(_ path: String, contents: [UInt8]) async throws {
        let source = path + ".source"
        try Data(contents).write(to: URL(fileURLWithPath: source))
        let made = try await run("/usr/bin/install", ["-m", "755", source, path])
        guard made.status == 0 else {
            throw FixtureError(message: "install could not make \(path): \(String(decoding: made.stderr, as: UTF8.self))")
        }
    }

    // MARK: - The fixture set

    /// Two seconds of stereo tones (different per channel) at `rate`.
    static func tone(rate: Int = 44100, seconds: Double = 2, channels: Int = 2) -> [String] {
        let expression = channels == 1 ? "sin(440*2*PI*t)*0.5" : (0..<channels).map { "sin(\(330 + 110 * $0)*2*PI*t)*0.4" }.joined(separator: "|")
        return ["-f", "lavfi", "-i", "aevalsrc=\(expression):s=\(rate):d=\(seconds)"]
    }

    static func pattern(size: String = "160x120", rate: Int = 25, seconds: Double = 1) -> [String] {
        ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)"]
    }

    public static let audioCodecs: [(name: String, arguments: [String])] = [
        ("tone.mp3", tone() + ["-c:a", "libmp3lame", "-b:a", "128k"]),
        ("tone.m4a", tone() + ["-c:a", "aac", "-b:a", "128k"]),
        ("tone.ogg", tone() + ["-c:a", "libvorbis"]),
        ("tone.opus", tone(rate: 48000) + ["-c:a", "libopus"]),
        ("tone.flac", tone() + ["-c:a", "flac"]),
        ("tone.wav", tone() + ["-c:a", "pcm_s16le"]),
        ("tone-96k.flac", tone(rate: 96000, seconds: 1) + ["-c:a", "flac", "-sample_fmt", "s32"]),
        ("tone-8k-mono.wav", tone(rate: 8000, seconds: 1, channels: 1) + ["-c:a", "pcm_s16le"]),
        ("tone-5.1.m4a", tone(seconds: 1, channels: 6) + ["-c:a", "aac", "-channel_layout", "5.1"]),
    ]

    public static let videoCodecs: [(name: String, arguments: [String])] = [
        ("pattern-h264.mp4", pattern() + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast"]),
        ("pattern-hevc.mp4", pattern() + ["-c:v", "libx265", "-pix_fmt", "yuv420p", "-preset", "ultrafast", "-x265-params", "log-level=error"]),
        ("pattern-vp8.webm", pattern() + ["-c:v", "libvpx", "-b:v", "500k"]),
        ("pattern-vp9.webm", pattern() + ["-c:v", "libvpx-vp9", "-b:v", "500k", "-deadline", "realtime", "-cpu-used", "8"]),
        ("pattern-mpeg4.avi", pattern() + ["-c:v", "mpeg4", "-q:v", "5"]),
        ("pattern-odd-size.mp4", pattern(size: "173x97") + ["-c:v", "libx264", "-pix_fmt", "yuv444p", "-preset", "veryfast"]),
    ]

    public static let images: [(name: String, arguments: [String])] = [
        ("picture.png", pattern(size: "320x240", seconds: 0.04) + ["-frames:v", "1"]),
        ("picture.jpg", pattern(size: "320x240", seconds: 0.04) + ["-frames:v", "1", "-q:v", "3"]),
        ("picture.webp", pattern(size: "320x240", seconds: 0.04) + ["-frames:v", "1", "-c:v", "libwebp"]),
        ("picture.gif", pattern(size: "160x120", seconds: 0.04) + ["-frames:v", "1"]),
    ]

    /// Audio and video together, as a real clip is.
    public static let clip: (name: String, arguments: [String]) = (
        "clip.mp4",
        pattern(seconds: 2) + tone() + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast", "-c:a", "aac", "-shortest"]
    )

    /// A longer clip for playing while downloading (about 1 MB, a keyframe
    /// a second so that a seek skips bytes). ffmpeg writes the MP4 index at
    /// the end unless told `+faststart`.
    public static func streamingClip(faststart: Bool) -> (name: String, arguments: [String]) {
        let layout = faststart ? ["-movflags", "+faststart"] : []
        return (
            faststart ? "progressive-faststart.mp4" : "progressive-index-at-end.mp4",
            pattern(size: "320x240", seconds: 6) + tone(seconds: 6)
                + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast", "-b:v", "1500k", "-g", "25", "-c:a", "aac", "-shortest"] + layout
        )
    }

    /// A phone's portrait video: stored 160×120 with a display matrix that
    /// ffprobe reports as rotation=90 and ffmpeg autorotates with
    /// transpose=cclock (ffmpeg 5.1 writes it from `rotate` only when remuxing).
    public static func portraitVideo() async throws -> String {
        let landscape = try await make(videoCodecs[0].name, videoCodecs[0].arguments)
        return try await make("portrait-90.mp4", ["-i", landscape, "-c", "copy", "-metadata:s:v:0", "rotate=90"])
    }

    /// Clips whose streams do not match, as real files and `-c copy` cuts
    /// often are: video longer than audio, audio longer than video, audio
    /// that starts a second late, and video with a second-long hole.
    public static let unequalStreams: [(name: String, arguments: [String])] = [
        ("video-outlasts-audio.mp4", pattern(size: "320x240", seconds: 3) + tone(seconds: 2) + ["-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac"]),
        ("audio-outlasts-video.mp4", pattern(size: "320x240", seconds: 2) + tone(seconds: 3) + ["-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac"]),
        ("audio-starts-late.mp4", pattern(size: "320x240", seconds: 3) + ["-itsoffset", "1"] + tone(seconds: 2) + ["-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac"]),
        ("video-with-a-hole.mp4", pattern(size: "320x240", seconds: 3) + tone(seconds: 3)
            + ["-vf", "select='not(between(t,1,2))'", "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac"]),
    ]

    /// How many video frames a file holds, by ffprobe's count.
    public static func frameCount(_ path: String) async throws -> Int {
        let result = try await run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        guard result.status == 0, let count = Int(String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw FixtureError(message: "ffprobe could not count the frames of \(path)")
        }
        return count
    }

    /// A picture far wider than any screen.
    public static let panorama: (name: String, arguments: [String]) = (
        "panorama.png", pattern(size: "3000x500", seconds: 0.04) + ["-frames:v", "1"]
    )
}

/// What mediaplay recorded with `--audio-out` and `--video-out`, read back for
/// comparison with the references above.
public enum Recorded {
    /// The samples of a WAV file written by `WAVFileSink` (a 44-byte header).
    public static func pcm(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(44))
    }

    /// The MD5 column of a `--video-out` file, one per frame.
    public static func hashes(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
    }

    /// The largest difference between two s16 recordings, sample by sample.
    public static func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var worst = 0
        var offset = 0
        while offset + 1 < min(a.count, b.count) {
            let x = Int(Int16(bitPattern: UInt16(a[offset]) | UInt16(a[offset + 1]) << 8))
            let y = Int(Int16(bitPattern: UInt16(b[offset]) | UInt16(b[offset + 1]) << 8))
            worst = max(worst, abs(x - y))
            offset += 2
        }
        return worst
    }
}
