import Foundation
import MediaControl
import MediaEngine
import MediaModel
import TestKit

// The controls issue's benchmarks, mediaplay beside mpv in one run, both on
// SDL's disk audio driver, so "at the device" means the same for both: the
// bytes the driver wrote, which it writes in real time.

func controlsBenchmark(runs: Int) async throws {
    let tone = try await Fixtures.make("bench-tone-30s.wav", [
        "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)*0.4|sin(550*2*PI*t)*0.4:s=44100:d=30", "-c:a", "pcm_s16le",
    ])
    print("Controls benchmark, \(runs) runs, SDL disk audio driver")
    print("")
    try await volumeLatency(tone: tone, runs: runs)
    if arguments.contains("--only-volume") { return }
    try await speedCPU(runs: runs)
    try await gaplessJoin(runs: runs)
}

/// (a) A volume change, request to the device taking the first sample at
/// the new level (wall time); then the loudness gain (a ReplayGain tag's, a
/// measured file's) coming on the same way. Both players write SDL's disk
/// file unbuffered (see DeviceWatch.swift).
private func volumeLatency(tone: String, runs: Int) async throws {
    let folder = try TemporaryDirectory()
    // The same tone with a -6.5 dB ReplayGain tag, and again untagged to be
    // measured (brought to -18 LUFS).
    let tagged = try await Fixtures.make("bench-tone-30s-tagged.flac", [
        "-i", tone, "-c:a", "flac", "-metadata", "REPLAYGAIN_TRACK_GAIN=-6.50 dB", "-metadata", "REPLAYGAIN_TRACK_PEAK=0.400000",
    ])
    let untagged = try await Fixtures.make("bench-tone-30s-untagged.flac", ["-i", tone, "-c:a", "flac"])
    let (environment, disk) = try startDaemon(tone: tone, folder: folder, more: [tagged, untagged], extra: UnbufferedDisk.environment)
    defer { _ = measured(mediaplay, ["quit"], environment: environment) }
    let paths = ControlPaths(runtimeDirectory: folder.path + "/run/mediaplay")
    guard let client = try ControlClient.connect(paths) else { fatalError("no daemon at \(paths.socket)") }
    // Each change takes about half a second of the 30 s tone: at most 50.
    let changes = min(runs * 10, 50)
    func call(_ request: ControlRequest) throws { _ = try client.call(request, as: ItemStatusProbe.self) }
    func latencies(item: Int, lower: ControlRequest, restore: ControlRequest) throws -> [Double] {
        // One device at a time: SDL's disk driver opens the file anew for
        // each, and a paused one goes on writing silence to it.
        try call(ControlRequest(id: nil, cmd: .stop))
        usleep(300_000)
        try call(restore)
        try call(ControlRequest(id: nil, cmd: .toggle, item: .number(item)))
        usleep(1_500_000)
        let watch = DeviceWatch(disk)
        defer { watch.stop() }
        usleep(200_000)
        return try wallLatencies(watch, count: changes, change: { try call(lower) }, restore: { try call(restore) })
    }
    let ours = try latencies(item: 1, lower: ControlRequest(id: nil, cmd: .volume, level: 50), restore: ControlRequest(id: nil, cmd: .volume, level: 100))
    let off = ControlRequest(.loudness(.off))
    let tags = try latencies(item: 2, lower: ControlRequest(.loudness(.tags)), restore: off)
    let measuredGain = try latencies(item: 3, lower: ControlRequest(.loudness(.measured)), restore: off)
    try call(ControlRequest(id: nil, cmd: .stop))

    let mpv = try MPVSession(folder: folder, extra: UnbufferedDisk.environment)
    _ = try mpv.load(tone)
    usleep(1_500_000)
    let watch = DeviceWatch(mpv.disk)
    defer { watch.stop() }
    usleep(200_000)
    let theirs = try wallLatencies(watch, count: changes, change: { try mpv.command(#""set","volume","50""#) }, restore: { try mpv.command(#""set","volume","100""#) })
    print("(a) volume 100 → 50 while playing, request to the device taking the new level (wall time, \(changes) changes each)")
    print("")
    percentiles("mediaplay volume (socket request)", ours)
    percentiles("mediaplay loudness tags (ReplayGain −6.5 dB)", tags)
    percentiles("mediaplay loudness measured (to −18 LUFS)", measuredGain)
    percentiles("mpv set volume (JSON IPC)", theirs)
    print("")
    headline("volume change to the new level at the device (p50)", ours: "mediaplay volume (socket request)", theirs: "mpv set volume (JSON IPC)", anchorName: "mpv", target: "≤ 1×")
    headline("volume change at the device (p90)", ours: "mediaplay volume (socket request) p90", theirs: "mpv set volume (JSON IPC) p90", anchorName: "mpv", target: "≤ 1×")
    headline("ReplayGain coming on, at the device (p90)", ours: "mediaplay loudness tags (ReplayGain −6.5 dB) p90", theirs: "mpv set volume (JSON IPC) p90", anchorName: "mpv volume", target: "≤ 1×")
    headline("measured gain coming on, at the device (p90)", ours: "mediaplay loudness measured (to −18 LUFS) p90", theirs: "mpv set volume (JSON IPC) p90", anchorName: "mpv volume", target: "≤ 1×")
}

/// (b) CPU for the 1080p clip at speed 2, the same outputs: video decoded and
/// dropped (mpv's null video output; our engine with a null video sink, as
/// mpv's SDL output refuses SDL's dummy video driver), audio to SDL's disk
/// driver.
private func speedCPU(runs: Int) async throws {
    let clip = try await Fixtures.make("bench-1080p30-h264-aac-20s.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=20",
        "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest",
    ])
    setenv("SDL_AUDIODRIVER", "disk", 1)
    setenv("SDL_DISKAUDIOFILE", "/dev/null", 1)
    var theirs: [Measured] = []
    var ourCPU: [Double] = []
    var ourWall: [Double] = []
    for _ in 1...runs {
        theirs.append(measured("/usr/bin/mpv", ["--no-config", "--no-terminal", "--vo=null", "--ao=sdl", "--speed=2", clip], environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]))
        var options = PlaybackOptions()
        options.settings = AudioSettings(speed: 2)
        let cpuBefore = processCPU()
        let start = monotonic()
        let player = Player(path: clip, audioSink: try SDLAudioSink(), videoSink: NullSink(), options: options)
        player.play()
        guard player.waitUntilFinished() == .ended else { fatalError("playback at speed 2 failed") }
        ourWall.append(monotonic() - start)
        ourCPU.append(processCPU() - cpuBefore)
    }
    print("(b) the 1080p30 20 s clip at speed 2: video decoded and dropped, audio to SDL's disk driver (medians of \(runs))")
    print("")
    print("| run | wall | CPU | vs mpv |")
    print("|---|---|---|---|")
    let theirCPU = median(theirs.map(\.cpu))
    print(String(format: "| `mpv --vo=null --ao=sdl --speed=2` | %.2f s | %.2f s | 1.00× |", median(theirs.map(\.wall)), theirCPU))
    print(String(format: "| mediaplay engine, speed 2, null video sink, SDL audio | %.2f s | %.2f s | %.2f× |", median(ourWall), median(ourCPU), median(ourCPU) / theirCPU))
    headline(
        "speed 2, 1080p30 20 s (CPU)", mediaplay: String(format: "%.2f s", median(ourCPU)),
        anchor: String(format: "mpv %.2f s", theirCPU), ratio: median(ourCPU) / theirCPU, target: "≤ 1×"
    )
    print("")
}

/// The longest run of silent stereo frames between the first and the last
/// sound in a device recording: the gap at the join of two tones that are
/// never silent for two frames in a row.
private func longestSilence(_ disk: String) -> Int {
    guard let data = FileManager.default.contents(atPath: disk) else { return -1 }
    let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }  // one stereo frame each
    guard let first = samples.firstIndex(where: { $0 != 0 }), let last = samples.lastIndex(where: { $0 != 0 }) else { return -1 }
    var longest = 0
    var run = 0
    for frame in samples[first...last] {
        run = frame == 0 ? run + 1 : 0
        longest = max(longest, run)
    }
    return longest
}

/// (c) The silence at an item change: two tones of one format in a row.
private func gaplessJoin(runs: Int) async throws {
    func tone(_ name: String, _ frequency: Int) async throws -> String {
        try await Fixtures.make(name, ["-f", "lavfi", "-i", "aevalsrc=0.4*sin(\(frequency)*2*PI*t+0.3)|0.4*sin(\(frequency)*2*PI*t+0.3):s=44100:d=2", "-c:a", "pcm_s16le"])
    }
    let first = try await tone("bench-join-a.wav", 440)
    let second = try await tone("bench-join-b.wav", 550)
    var ours: [Int] = []
    var theirs: [Int] = []
    for _ in 1...runs {
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.json", #"[{"type": 1, "title": "A", "url": "file://\#(first)"}, {"type": 1, "title": "B", "url": "file://\#(second)"}]"#)
        let script = try folder.write("script.txt", "autoplay on\ntoggle 1\nwait-until ended 2 30s\n")
        let disk = folder.path + "/device.raw"
        _ = measured(mediaplay, ["script", script, "--feed", feed], environment: [
            "XDG_STATE_HOME": folder.path + "/state", "XDG_CACHE_HOME": folder.path + "/cache", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": disk,
        ])
        ours.append(longestSilence(disk))
        let mpvDisk = folder.path + "/mpv-device.raw"
        _ = measured("/usr/bin/mpv", ["--no-config", "--no-terminal", "--vid=no", "--ao=sdl", "--gapless-audio=yes", first, second], environment: [
            "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": mpvDisk,
        ])
        theirs.append(longestSilence(mpvDisk))
    }
    print("(c) silent frames at the join of two 44.1 kHz stereo tones, autoplay (\(runs) runs each)")
    print("")
    print("| player | silent frames at the join, each run |")
    print("|---|---|")
    print("| mediaplay (script, autoplay on) | \(ours.map(String.init).joined(separator: ", ")) |")
    print("| `mpv --gapless-audio=yes a b` | \(theirs.map(String.init).joined(separator: ", ")) |")
    print("")
}
