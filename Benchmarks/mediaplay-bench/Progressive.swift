import Foundation
import MediaControl
import TestKit

// Play while downloading (#7): a 1080p H.264 clip of about 14 MB served at
// 2 MB/s by the loopback test server. From the toggle request to the first
// sample on the device (SDL's disk driver), against downloading the whole
// file first, and against mpv playing the same URL. Every run uses a URL of
// its own, so nothing is ever cached.
func progressiveBenchmark(runs: Int) async throws {
    let clip = try await Fixtures.make("bench-1080p-h264-14mb.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=20",
        "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)*0.4|sin(550*2*PI*t)*0.4:s=48000:d=20",
        "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "5400k", "-maxrate", "5400k", "-bufsize", "5400k",
        "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-shortest", "-movflags", "+faststart",
    ])
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
    let rate = 2_000_000
    let count = runs * 3
    let server = try TestHTTPServer()
    let paths = (0..<count * 3).map { "/clip-\($0).mp4" }
    for path in paths {
        server.serve(path, bytes: bytes, contentType: "video/mp4")
        server.throttle(path, bytesPerSecond: rate)
    }
    print(String(format: "Play while downloading: %@ (1080p H.264 + AAC, %.1f MB, faststart) at %.0f MB/s over loopback, %d runs each",
                 (clip as NSString).lastPathComponent, Double(bytes.count) / 1e6, Double(rate) / 1e6, count))

    let folder = try TemporaryDirectory()
    let items = paths.map { #"{"type": 2, "title": "Clip", "url": "\#(server.url($0).absoluteString)"}"# }
    let feed = try folder.write("feed.json", "[" + items.joined(separator: ",\n") + "]")
    // The device's file on tmpfs: on the disk, its writes queue behind the
    // cache's (earlier runs' downloads go on) and the first sample comes late.
    let disk = "/dev/shm/mediaplay-bench-device-\(getpid()).raw"
    defer { try? FileManager.default.removeItem(atPath: disk) }
    let environment = [
        "MEDIAPLAY_FEED": feed, "XDG_RUNTIME_DIR": folder.path + "/run", "XDG_STATE_HOME": folder.path + "/state",
        "XDG_CACHE_HOME": folder.path + "/cache", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": disk,
    ]
    for (key, value) in environment { setenv(key, value, 1) }
    unsetenv("DISPLAY")
    unsetenv("WAYLAND_DISPLAY")
    _ = measured(mediaplay, ["daemon"], environment: environment)
    defer { _ = measured(mediaplay, ["quit"], environment: environment) }
    guard let client = try ControlClient.connect(ControlPaths(runtimeDirectory: folder.path + "/run/mediaplay")) else {
        fatalError("no daemon")
    }
    /// Stops what plays and clears the device file, then times `body`
    /// until the first sound.
    func untilSound(_ body: () throws -> Void) throws -> Double {
        _ = try client.call(ControlRequest(id: nil, cmd: .stop), as: ItemStatusProbe.self)
        usleep(300_000)
        try? FileManager.default.removeItem(atPath: disk)
        let start = monotonic()
        try body()
        guard let sound = waitForSound(in: disk, timeout: 60) else { fatalError("no sound reached the device") }
        return sound - start
    }

    var progressive: [Double] = []
    for index in 0..<count {
        progressive.append(try untilSound {
            _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(index + 1)), as: ItemStatusProbe.self)
        })
    }
    percentiles("mediaplay toggle, playing while downloading: to first sample", progressive)

    var whole: [Double] = []
    for index in count..<count * 2 {
        whole.append(try untilSound {
            _ = measured(mediaplay, ["fetch", "\(index + 1)"], environment: environment)
            _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(index + 1)), as: ItemStatusProbe.self)
        })
    }
    percentiles("mediaplay fetch (whole file), then toggle: to first sample", whole)
    _ = try client.call(ControlRequest(id: nil, cmd: .stop), as: ItemStatusProbe.self)

    if FileManager.default.isExecutableFile(atPath: "/usr/bin/mpv") {
        let mpvFolder = try TemporaryDirectory()
        let mpv = try MPVSession(folder: mpvFolder)
        var restart: [Double] = []
        var sound: [Double] = []
        for index in count * 2..<count * 3 {
            let (restarted, heard) = try mpv.load(server.url(paths[index]).absoluteString)
            restart.append(restarted)
            sound.append(heard)
        }
        percentiles("mpv loadfile URL: to playback-restart", restart)
        percentiles("mpv loadfile URL: to first sample", sound)
        headline(
            "play while downloading, to the first sample (p50)", ours: "mediaplay toggle, playing while downloading: to first sample",
            theirs: "mpv loadfile URL: to first sample", anchorName: "mpv", target: "none"
        )
    } else {
        print("(mpv not installed: apt-get install mpv)")
    }
}
