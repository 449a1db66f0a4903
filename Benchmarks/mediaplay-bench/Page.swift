import Foundation
import TestKit

// Web pages and DASH (#46). A page on loopback (`<video><source src=…>`,
// a 10 s 640×360 H.264 + AAC clip) played whole, untimed, sound to a WAV
// file and pictures decoded, by mediaplay and by mpv, each resolving the
// page through the same yt-dlp (each run a fresh page and clip, so nothing
// is cached). Then the first sample of a DASH stream (video and audio in
// adaptation sets of their own) on SDL's disk device: mediaplay's toggle
// against mpv's, each a program started for it.
func pageBenchmark(runs: Int) async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mpv"), FileManager.default.isExecutableFile(atPath: "/usr/bin/yt-dlp") else {
        print("(mpv or yt-dlp not installed: scripts/install-deps.sh --test)")
        return
    }
    let clip = try await Fixtures.make("bench-page-360p-10s.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=10",
        "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)*0.4|sin(550*2*PI*t)*0.4:s=48000:d=10",
        "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-shortest", "-movflags", "+faststart",
    ])
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
    let server = try TestHTTPServer()
    let folder = try TemporaryDirectory()
    func page(_ index: Int) -> String {
        server.serve("/clip-\(index).mp4", bytes: bytes, contentType: "video/mp4")
        let html = "<!doctype html><html><head><title>Bench \(index)</title></head><body><video><source src=\"clip-\(index).mp4\" type=\"video/mp4\"></video></body></html>"
        server.serve("/page-\(index).html", bytes: Array(html.utf8), contentType: "text/html")
        return server.url("/page-\(index).html").absoluteString
    }
    print(String(format: "Web page played whole, untimed: %@ (%.1f MB) behind a loopback page, yt-dlp %@, median of %d runs",
                 (clip as NSString).lastPathComponent, Double(bytes.count) / 1e6, ytdlVersion(), runs))
    var ours: [Double] = []
    var theirs: [Double] = []
    for run in 0..<runs {
        let cache = folder.path + "/cache-\(run)"
        ours.append(timed(mediaplay, ["play", page(run * 2), "--cache-dir", cache, "--audio-out", folder.path + "/ours.wav", "--video-out", "/dev/null", "--untimed"]))
        try? FileManager.default.removeItem(atPath: cache)
        theirs.append(timed("/usr/bin/mpv", [
            "--no-config", "--really-quiet", "--untimed", "--ao=pcm", "--ao-pcm-file=\(folder.path)/mpv.wav", "--vo=null", page(run * 2 + 1),
        ]))
    }
    percentiles("mediaplay play PAGE --untimed (sound to WAV, pictures decoded)", ours)
    percentiles("mpv --untimed --ao=pcm --vo=null PAGE", theirs)
    headline(
        "a web page played whole, untimed (yt-dlp + download + decode)", mediaplay: String(format: "%.2f s", median(ours)),
        anchor: String(format: "mpv %.2f s", median(theirs)), ratio: median(ours) / median(theirs), target: "≤ 1×"
    )

    // DASH: the first sample of a stream whose video and audio are apart.
    let dash = folder.path + "/dash"
    try FileManager.default.createDirectory(atPath: dash, withIntermediateDirectories: true)
    let made = try await Fixtures.run("/usr/bin/ffmpeg", [
        "-v", "error", "-nostdin", "-y", "-i", clip, "-map", "0:v", "-map", "0:a", "-c", "copy", "-f", "dash", "-seg_duration", "2",
        "-adaptation_sets", "id=0,streams=v id=1,streams=a", dash + "/manifest.mpd",
    ])
    guard made.status == 0 else { fatalError("ffmpeg could not make the DASH stream") }
    for name in try FileManager.default.contentsOfDirectory(atPath: dash) {
        server.serve("/dash/\(name)", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dash + "/" + name))), contentType: name.hasSuffix(".mpd") ? "application/dash+xml" : "video/mp4")
    }
    let count = max(runs, 5)
    let manifest = server.url("/dash/manifest.mpd").absoluteString
    let disk = "/dev/shm/mediaplay-bench-dash-\(getpid()).raw"
    defer { try? FileManager.default.removeItem(atPath: disk) }
    var environment = ProcessInfo.processInfo.environment
    environment["SDL_AUDIODRIVER"] = "disk"
    environment["SDL_DISKAUDIOFILE"] = disk
    environment["XDG_STATE_HOME"] = folder.path + "/state"
    environment["XDG_CACHE_HOME"] = folder.path + "/xdg-cache"
    environment["DISPLAY"] = nil
    environment["WAYLAND_DISPLAY"] = nil
    /// From the program's start to the first sound on the device (each
    /// run a URL of its own), then the program ends.
    func untilSound(_ executable: String, _ words: [String]) throws -> Double {
        try? FileManager.default.removeItem(atPath: disk)
        let start = monotonic()
        let child = try ChildProcess(executable, words, environment: environment)
        guard let sound = waitForSound(in: disk, timeout: 60) else { fatalError("no sound from \(executable) reached the device") }
        kill(child.pid, SIGKILL)
        var status: Int32 = 0
        waitpid(child.pid, &status, 0)
        return sound - start
    }
    var first: [Double] = []
    var mpvFirst: [Double] = []
    for run in 0..<count {
        first.append(try untilSound(mediaplay, ["play", manifest + "?run=\(run)", "--no-video", "--start", "0"]))
        mpvFirst.append(try untilSound("/usr/bin/mpv", ["--no-config", "--really-quiet", "--ao=sdl", "--vid=no", manifest + "?mpv=\(run)"]))
    }
    percentiles("mediaplay play DASH manifest --no-video: start to first sample", first)
    percentiles("mpv --vid=no DASH manifest: start to first sample", mpvFirst)
    headline(
        "DASH stream, to the first sample (p50)", ours: "mediaplay play DASH manifest --no-video: start to first sample",
        theirs: "mpv --vid=no DASH manifest: start to first sample", anchorName: "mpv", target: "none"
    )
}

private func ytdlVersion() -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/yt-dlp")
    process.arguments = ["--version"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try? process.run()
    process.waitUntilExit()
    return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
