import Foundation
import TestKit

// The loudness issue's benchmarks: the measurement's speed beside ffmpeg's
// ebur128 in the same run, and what normalisation costs playback.

func loudnessBenchmark(runs: Int) async throws {
    print("Loudness benchmark, \(runs) runs")
    print("")
    if !arguments.contains("--only-cpu") { try await measurementSpeed(runs: runs) }
    try await normalisationCPU(runs: runs)
}

/// (a) An hour of stereo MP3 measured: `mediaplay measure` (decode, ebur128
/// with true peak, the index written) against `ffmpeg -af ebur128=peak=true
/// -f null -`, CPU time. Target: 50× real time, an hour in at most 72 s.
private func measurementSpeed(runs: Int) async throws {
    let hour = try await Fixtures.make("bench-hour-stereo.mp3", [
        "-f", "lavfi", "-i", "sine=frequency=220:sample_rate=44100:duration=3600",
        "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=3600",
        "-filter_complex", "[0:a][1:a]amerge=inputs=2,volume='0.6+0.3*sin(t/7)':eval=frame", "-c:a", "libmp3lame", "-b:a", "128k",
    ])
    var ours: [Measured] = []
    var theirs: [Measured] = []
    for _ in 1...runs {
        let cache = try TemporaryDirectory()
        ours.append(measured(mediaplay, ["measure", hour, "--cache-dir", cache.path]))
        theirs.append(measured("/usr/bin/ffmpeg", ["-hide_banner", "-nostats", "-i", hour, "-af", "ebur128=peak=true", "-f", "null", "-"]))
    }
    let (ourCPU, theirCPU) = (median(ours.map(\.cpu)), median(theirs.map(\.cpu)))
    print("(a) one hour of stereo MP3 (44.1 kHz, 128 kb/s), loudness measured (medians of \(runs))")
    print("")
    print("| run | wall | CPU | real time / CPU |")
    print("|---|---|---|---|")
    print(String(format: "| `ffmpeg -af ebur128=peak=true -f null -` | %.1f s | %.1f s | %.0f× |", median(theirs.map(\.wall)), theirCPU, 3600 / theirCPU))
    print(String(format: "| `mediaplay measure FILE` | %.1f s | %.1f s | %.0f× |", median(ours.map(\.wall)), ourCPU, 3600 / ourCPU))
    print("")
    headline(
        "loudness measured, 1 h of MP3 (CPU)", mediaplay: String(format: "%.1f s", ourCPU),
        anchor: String(format: "ffmpeg ebur128 %.1f s", theirCPU), ratio: ourCPU / theirCPU, target: "≤ 72 s"
    )
}

/// (b) Real-time playback CPU with normalisation on (a ReplayGain tag's
/// gain applied by the device) against off, 30 s of 48 kHz stereo FLAC to
/// SDL's disk driver. Target: within 2 %.
private func normalisationCPU(runs: Int) async throws {
    let tagged = try await Fixtures.make("bench-tagged-30s.flac", [
        "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)*0.5|sin(550*2*PI*t)*0.5:s=48000:d=30", "-c:a", "flac",
        "-metadata", "REPLAYGAIN_TRACK_GAIN=-6.50 dB", "-metadata", "REPLAYGAIN_TRACK_PEAK=0.500000",
    ])
    let environment = ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null", "MEDIAPLAY_MEASURE_LOUDNESS": "0"]
    var on: [Double] = []
    var off: [Double] = []
    for run in 1...runs {
        let cache = try TemporaryDirectory()
        // In turns, each first every other run: neither gains from going second.
        for mode in run % 2 == 0 ? ["off", "on"] : ["on", "off"] {
            let cpu = measured(mediaplay, ["play", tagged, "--loudness", mode, "--cache-dir", cache.path], environment: environment).cpu
            if mode == "on" { on.append(cpu) } else { off.append(cpu) }
        }
    }
    let (cpuOn, cpuOff) = (median(on), median(off))
    print("(b) 30 s of 48 kHz stereo FLAC in real time to SDL's disk driver, a -6.5 dB ReplayGain tag (medians of \(runs))")
    print("")
    print(String(format: "| `play --loudness off` | %.3f s CPU | 1.00× |", cpuOff))
    print(String(format: "| `play --loudness on` (gain −6.5 dB) | %.3f s CPU | %.3f× |", cpuOn, cpuOn / cpuOff))
    print("")
    headline(
        "playback with normalisation on, 30 s FLAC (CPU)", mediaplay: String(format: "%.3f s", cpuOn),
        anchor: String(format: "off %.3f s", cpuOff), ratio: cpuOn / cpuOff, target: "≤ 1.02×"
    )
}
