import Foundation
import MediaEngine
import TestKit

/// The playback benchmarks of issue #4, side by side with ffmpeg and ffplay.
func playbackBenchmark(runs: Int, only: String?) async throws {
    let clip = try await Fixtures.make("bench-1080p30-h264-aac-20s.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=20",
        "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest",
    ])
    print("Playback benchmark: \(clip) (1920×1080 30 fps H.264 + AAC, 20 s), \(runs) runs, medians")
    print("")

    if only == nil || only == "a" { try untimedBenchmark(clip: clip, runs: runs) }
    if only == nil || only == "b" { try realTimeBenchmark(clip: clip, runs: runs) }
    if only == nil || only == "c" { try pausedBenchmark(clip: clip) }
}

func untimedBenchmark(clip: String, runs: Int) throws {
    // (a) Untimed decode.
    var ffmpegTimes: [Double] = []
    var ffmpegCPU: [Double] = []
    var ourTimes: [Double] = []
    var ourCPU: [Double] = []
    for _ in 1...runs {
        let reference = measured("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", clip, "-f", "null", "-"], environment: [:])
        ffmpegTimes.append(reference.wall)
        ffmpegCPU.append(reference.cpu)
        var options = PlaybackOptions()
        options.clock = .untimed
        let cpuBefore = processCPU()
        let start = monotonic()
        let player = Player(path: clip, audioSink: NullSink(), videoSink: NullSink(), options: options)
        player.play()
        guard player.waitUntilFinished() == .ended else { fatalError("decode failed") }
        ourTimes.append(monotonic() - start)
        ourCPU.append(processCPU() - cpuBefore)
    }
    print("(a) untimed decode of both streams")
    print("")
    print("| run | wall | CPU | vs ffmpeg |")
    print("|---|---|---|---|")
    print(String(format: "| `ffmpeg -i F -f null -` | %.3f s | %.2f s | 1.00× |", median(ffmpegTimes), median(ffmpegCPU)))
    print(String(format: "| mediaplay engine, null sinks, untimed | %.3f s | %.2f s | %.2f× |", median(ourTimes), median(ourCPU), median(ourTimes) / median(ffmpegTimes)))
        headline(
            "untimed decode, 1080p30 20 s (wall)", mediaplay: String(format: "%.3f s", median(ourTimes)),
            anchor: String(format: "ffmpeg %.3f s", median(ffmpegTimes)), ratio: median(ourTimes) / median(ffmpegTimes), target: "≤ 1.02×"
        )
    print("")
}

func realTimeBenchmark(clip: String, runs: Int) throws {
    // (b) Real-time playback, (d) peak RSS, (e) A/V drift.
    let drivers = ["SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]
    var ffplayRuns: [Measured] = []
    var ourRuns: [Measured] = []
    for _ in 1...runs {
        ffplayRuns.append(measured("/usr/bin/ffplay", ["-v", "error", "-autoexit", "-x", "1024", "-y", "576", clip], environment: drivers, peakRSS: true))
        ourRuns.append(measured(mediaplay, ["play", clip, "--stats"], environment: drivers, peakRSS: true))
    }
    let ffplayCPU = median(ffplayRuns.map(\.cpu))
    let ourCPUReal = median(ourRuns.map(\.cpu))
    print("(b) real-time playback, SDL dummy video (1024×576 window) and disk audio; (d) peak RSS")
    print("")
    print("| run | wall | CPU | vs ffplay | peak RSS |")
    print("|---|---|---|---|---|")
    print(String(format: "| `ffplay -autoexit -x 1024 -y 576` | %.2f s | %.2f s | 1.00× | %.0f MiB |", median(ffplayRuns.map(\.wall)), ffplayCPU, median(ffplayRuns.map { Double($0.maxRSSKiB) / 1024 })))
    print(String(format: "| `mediaplay play` | %.2f s | %.2f s | %.2f× | %.0f MiB |", median(ourRuns.map(\.wall)), ourCPUReal, ourCPUReal / ffplayCPU, median(ourRuns.map { Double($0.maxRSSKiB) / 1024 })))
        headline(
            "real-time playback, 1080p30 20 s (CPU)", mediaplay: String(format: "%.2f s", ourCPUReal),
            anchor: String(format: "ffplay %.2f s", ffplayCPU), ratio: ourCPUReal / ffplayCPU, target: "≤ 1×"
        )
    print("")
    print("(e) mediaplay --stats per run:")
    for run in ourRuns {
        if let line = run.stderr.split(separator: "\n").first(where: { $0.hasPrefix("frames shown") }) { print("- \(line)") }
    }
    print("")
}

func pausedBenchmark(clip: String) throws {
    // (c) CPU while paused, in this process: real SDL audio (disk driver) and window (dummy driver).
    setenv("SDL_VIDEODRIVER", "dummy", 1)
    setenv("SDL_AUDIODRIVER", "disk", 1)
    setenv("SDL_DISKAUDIOFILE", "/dev/null", 1)
    let audio = try SDLAudioSink()
    let window = try SDLVideoSink(title: "bench")
    let player = Player(path: clip, audioSink: audio, videoSink: window)
    player.play()
    usleep(2_000_000)
    player.pause()
    usleep(500_000)
    let cpuBefore = processCPU()
    usleep(10_000_000)
    let pausedCPU = processCPU() - cpuBefore
    player.resume()
    usleep(500_000)
    player.stop()
    player.waitUntilFinished()
    print(String(format: "(c) CPU while paused for 10 s (whole process, SDL disk audio + dummy window open): %.2f ms", pausedCPU * 1000))
}
