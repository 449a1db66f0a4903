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

/// Seconds of audio the device played between `from` (its file's size when
/// the request went out) and the first 10 ms block below 60 % of the level
/// before: how long the change took to be heard.
private func heardAfter(_ disk: String, from: Int) -> Double? {
    guard let data = FileManager.default.contents(atPath: disk) else { return nil }
    let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let block = 441 * 2
    func peak(_ index: Int) -> Int { samples[index * block..<min((index + 1) * block, samples.count)].map { abs(Int($0)) }.max() ?? 0 }
    let start = from / 2 / block
    guard start > 10 else { return nil }
    let full = (start - 10..<start).map(peak).max() ?? 0
    guard let first = (start..<samples.count / block).first(where: { Double(peak($0)) < Double(full) * 0.6 }) else { return nil }
    return Double(first * block * 2 - from) / Double(44100 * 4)
}

private func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

/// Changes of level heard at the device: each `lower` request, the audio
/// played from the request to the first block at the new level, then
/// `restore` and a rest. Each change takes about 2 s of the 30 s tone.
private func levelChanges(_ client: ControlClient, disk: String, count: Int, lower: ControlRequest, restore: ControlRequest, what: String) throws -> [Double] {
    var heard: [Double] = []
    for _ in 0..<count {
        let from = fileSize(disk)
        _ = try client.call(lower, as: ItemStatusProbe.self)
        usleep(600_000)
        guard let after = heardAfter(disk, from: from) else { fatalError("mediaplay: the level never dropped (\(what))") }
        heard.append(after)
        _ = try client.call(restore, as: ItemStatusProbe.self)
        usleep(1_500_000)
    }
    return heard
}

/// (a) A volume change, request to the new level at the device; then the
/// loudness gain (a ReplayGain tag's, a measured file's) coming on.
private func volumeLatency(tone: String, runs: Int) async throws {
    let folder = try TemporaryDirectory()
    // The same tone with a -6.5 dB ReplayGain tag, and again untagged to be
    // measured (brought to -18 LUFS).
    let tagged = try await Fixtures.make("bench-tone-30s-tagged.flac", [
        "-i", tone, "-c:a", "flac", "-metadata", "REPLAYGAIN_TRACK_GAIN=-6.50 dB", "-metadata", "REPLAYGAIN_TRACK_PEAK=0.400000",
    ])
    let untagged = try await Fixtures.make("bench-tone-30s-untagged.flac", ["-i", tone, "-c:a", "flac"])
    let (environment, disk) = try startDaemon(tone: tone, folder: folder, more: [tagged, untagged])
    defer { _ = measured(mediaplay, ["quit"], environment: environment) }
    let paths = ControlPaths(runtimeDirectory: folder.path + "/run/mediaplay")
    guard let client = try ControlClient.connect(paths) else { fatalError("no daemon at \(paths.socket)") }
    _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(1)), as: ItemStatusProbe.self)
    usleep(1_500_000)
    // Each change takes about 2 s of the 30 s tone: at most 12.
    let changes = min(runs * 3, 12)
    let ours = try levelChanges(
        client, disk: disk, count: changes, lower: ControlRequest(id: nil, cmd: .volume, level: 50),
        restore: ControlRequest(id: nil, cmd: .volume, level: 100), what: "volume"
    )
    let off = ControlRequest(.loudness(.off))
    var gains: [String: [Double]] = [:]
    for (item, mode) in [(2, "tags"), (3, "measured")] {
        _ = try client.call(off, as: ItemStatusProbe.self)
        _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(item)), as: ItemStatusProbe.self)
        usleep(1_500_000)
        gains[mode] = try levelChanges(client, disk: disk, count: changes, lower: ControlRequest(.loudness(mode == "tags" ? .tags : .measured)), restore: off, what: mode)
    }
    _ = try client.call(ControlRequest(id: nil, cmd: .stop), as: ItemStatusProbe.self)

    let mpv = try MPVSession(folder: folder)
    _ = try mpv.load(tone)
    usleep(1_500_000)
    var theirs: [Double] = []
    for _ in 0..<changes {
        let from = fileSize(mpv.disk)
        try mpv.command(#""set","volume","50""#)
        usleep(600_000)
        guard let heard = heardAfter(mpv.disk, from: from) else { fatalError("mpv: the level never dropped") }
        theirs.append(heard)
        try mpv.command(#""set","volume","100""#)
        usleep(1_500_000)
    }
    print("(a) volume 100 → 50 while playing, request to the new level at the device (\(changes) changes each)")
    print("")
    percentiles("mediaplay volume (socket request)", ours)
    percentiles("mediaplay loudness tags (ReplayGain −6.5 dB)", gains["tags"] ?? [])
    percentiles("mediaplay loudness measured (to −18 LUFS)", gains["measured"] ?? [])
    percentiles("mpv set volume (JSON IPC)", theirs)
    print("")
    headline("volume change to the new level at the device (p50)", ours: "mediaplay volume (socket request)", theirs: "mpv set volume (JSON IPC)", anchorName: "mpv", target: "≤ 1×")
    headline("volume change at the device (p90)", ours: "mediaplay volume (socket request) p90", theirs: "mpv set volume (JSON IPC) p90", anchorName: "mpv", target: "≤ 1×")
    headline("ReplayGain coming on, at the device (p50)", ours: "mediaplay loudness tags (ReplayGain −6.5 dB)", theirs: "mpv set volume (JSON IPC)", anchorName: "mpv volume", target: "≤ 1×")
    headline("measured gain coming on, at the device (p50)", ours: "mediaplay loudness measured (to −18 LUFS)", theirs: "mpv set volume (JSON IPC)", anchorName: "mpv volume", target: "≤ 1×")
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
