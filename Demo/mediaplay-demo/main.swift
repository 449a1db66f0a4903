import Foundation
import TestKit

// `make demo`: mediaplay on a machine with no internet. Sample media are
// made by the ffmpeg CLI (once), served from a loopback HTTP server at a
// modest rate so the downloads take a moment, and `mediaplay browse` opens
// on a feed that points at them, with a fresh cache each time (so the
// spinners show). Usage: mediaplay-demo [path-to-mediaplay] [bytes-per-second]

let arguments = CommandLine.arguments
let program = arguments.count > 1 ? arguments[1] : ((CommandLine.arguments[0] as NSString).deletingLastPathComponent + "/mediaplay")
let rate = arguments.count > 2 ? Int(arguments[2]) ?? 150_000 : 150_000

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mediaplay-demo: \(message)\n".utf8))
    exit(1)
}

struct Sample {
    var file: String
    var type: Int
    var title: String
    var description: String
    var ffmpeg: [String]
    var thumbnail: String?
}

let card = "-f lavfi -i testsrc=size=640x360:rate=1 -frames:v 1"
let samples: [Sample] = [
    Sample(file: "test-card.png", type: 0, title: "Test card", description: "ffmpeg's testsrc pattern: colour bars, a gradient and a counter.", ffmpeg: card.split(separator: " ").map(String.init)),
    Sample(file: "mandelbrot.jpg", type: 0, title: "The Mandelbrot set, drawn by ffmpeg's mandelbrot source at 800×450", description: "A fractal. JPEG, about 100 KB, so its download takes a moment at the demo's rate.", ffmpeg: ["-f", "lavfi", "-i", "mandelbrot=size=800x450:end_pts=1", "-frames:v", "1", "-q:v", "2"]),
    Sample(file: "bars.webp", type: 0, title: "SMPTE bars", description: "Colour bars as WebP.", ffmpeg: ["-f", "lavfi", "-i", "smptehdbars=size=640x360", "-frames:v", "1", "-c:v", "libwebp"]),
    Sample(file: "tone.mp3", type: 1, title: "A minute of A440", description: "A sine tone at 440 Hz, MP3 at 128 kbit/s. Its cell shows a thumbnail from the feed.", ffmpeg: ["-f", "lavfi", "-i", "sine=frequency=440:duration=60", "-ac", "2", "-b:a", "128k"], thumbnail: "test-card.png"),
    Sample(file: "chord.flac", type: 1, title: "Chord (FLAC, no thumbnail)", description: "Two tones, lossless.", ffmpeg: ["-f", "lavfi", "-i", "sine=frequency=330:duration=20", "-f", "lavfi", "-i", "sine=frequency=495:duration=20", "-filter_complex", "amix=inputs=2", "-ac", "2"]),
    Sample(file: "pattern.mp4", type: 2, title: "Moving test pattern with a tone", description: "H.264 and AAC, 640×360, 20 seconds. A video with no thumbnail in the feed shows a frame of itself once it is in the cache.", ffmpeg: ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=20", "-f", "lavfi", "-i", "sine=frequency=660:duration=20", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"]),
    Sample(file: "life.mp4", type: 2, title: "Game of Life", description: "Conway's Game of Life, H.264 without sound, with a thumbnail.", ffmpeg: ["-f", "lavfi", "-i", "life=size=320x240:rate=15:mold=10:ratio=0.1:death_color=#202040:life_color=#40c0ff,format=yuv420p", "-t", "15", "-c:v", "libx264", "-preset", "veryfast"], thumbnail: "bars.webp"),
]

let server: TestHTTPServer
do {
    server = try TestHTTPServer()
} catch {
    fail("cannot start the loopback server: \(error)")
}
FileHandle.standardError.write(Data("mediaplay-demo: making sample media with ffmpeg (once) and serving them at \(rate / 1000) kB/s on \(server.url("/").absoluteString)\n".utf8))
var records: [String] = []
for sample in samples {
    let path: String
    do {
        path = try await Fixtures.make("demo-" + sample.file, sample.ffmpeg)
    } catch {
        fail("\(error)")
    }
    guard let bytes = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    server.serve("/" + sample.file, bytes: [UInt8](bytes), etag: "\"\(bytes.count)\"")
    server.throttle("/" + sample.file, bytesPerSecond: rate)
    var record: [String: Any] = [
        "type": sample.type, "title": sample.title, "description": sample.description,
        "url": server.url("/" + sample.file).absoluteString,
    ]
    if let thumbnail = sample.thumbnail { record["thumbnail"] = server.url("/" + thumbnail).absoluteString }
    records.append(String(decoding: try! JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
}
records.append(#"{"type": 5, "title": "A broken record (unknown type)", "url": "https://example.org/x"}"#)

let folder: TemporaryDirectory
do {
    folder = try TemporaryDirectory()
} catch {
    fail("cannot make a temporary folder: \(error)")
}
let feed = folder.path + "/demo-feed.json"
let document = "{\"title\": \"mediaplay demo (served from this machine)\", \"items\": [\n" + records.joined(separator: ",\n") + "\n]}\n"
guard FileManager.default.createFile(atPath: feed, contents: Data(document.utf8)) else { fail("cannot write \(feed)") }

// browse runs with this terminal; its cache and runtime folders are fresh,
// so nothing the user has is touched.
var environment = ProcessInfo.processInfo.environment
environment["MEDIAPLAY_CACHE_DIR"] = folder.path + "/cache"
environment["MEDIAPLAY_RUNTIME_DIR"] = folder.path + "/run"
let browse: ChildProcess
do {
    browse = try ChildProcess(program, ["browse", "--feed", feed], environment: environment, stdin: nil, stdout: nil, stderr: nil)
} catch {
    fail("\(error)")
}
let status = browse.waitUntilExit()
exit(ChildProcess.killedBySignal(status) ? 128 + ChildProcess.code(status) : ChildProcess.code(status))
