import Foundation
import TestKit

/// Resuming an episode at 1:00:00 of a 2-hour file that is not downloaded
/// yet, over a loopback link throttled to 1 MB/s: the time from the command
/// to sound past 1:00:00, `mediaplay play URL --start 3600` (its "playing"
/// line) against `mpv --start=3600 URL` (its audio output opening), in the
/// same run, each with nothing cached. Target: within a tenth of mpv's time.
/// A far seek in a file still downloading must ask for the range, not wait
/// for the linear download to get there (28 s at this rate).
func resumeBenchmark(runs: Int) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mpv") else {
        print("(mpv not installed: apt-get install mpv)")
        return
    }
    let scratch = try TemporaryDirectory()
    let file = scratch.path + "/episode.mp3"
    // Two hours of 32 kb/s mono MP3: 28.8 MB.
    _ = measured("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=300:duration=7200:sample_rate=22050", "-c:a", "libmp3lame", "-b:a", "32k", "-ac", "1", file])
    let server = try TestHTTPServer()
    server.serve("/episode.mp3", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: file))), contentType: "audio/mpeg")
    server.throttle("/episode.mp3", bytesPerSecond: 1_000_000)
    let url = server.url("/episode.mp3").absoluteString

    /// Seconds from spawn until `marker` shows on stdout or stderr (mpv
    /// says "AO:" on stdout; the process is then ended).
    func timeUntil(_ marker: String, _ executable: String, _ args: [String], environment extra: [String: String] = [:]) -> Double {
        let errorFile = scratch.path + "/stderr-\(UUID().uuidString)"
        let outputFile = scratch.path + "/stdout-\(UUID().uuidString)"
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { $1 }
        let start = monotonic()
        guard let child = try? ChildProcess(executable, args, environment: environment, stdout: outputFile, stderr: errorFile) else { fatalError("cannot run \(executable)") }
        var elapsed = Double.nan
        while monotonic() - start < 120 {
            let said = [errorFile, outputFile].compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            if said.contains(where: { $0.contains(marker) }) {
                elapsed = monotonic() - start
                break
            }
            if !child.isRunning { break }
            usleep(10_000)
        }
        kill(child.pid, SIGTERM)
        _ = child.waitUntilExit()
        return elapsed
    }

    var ours: [Double] = []
    var mpv: [Double] = []
    var requests: [Int] = []
    for run in 0..<runs {
        let before = server.requests("/episode.mp3").count
        ours.append(timeUntil("playing \"", mediaplay, ["play", url, "--start", "3600", "--no-video", "--cache-dir", scratch.path + "/cache-\(run)"],
                              environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]))
        requests.append(server.requests("/episode.mp3").count - before)
        mpv.append(timeUntil("AO: [", "/usr/bin/mpv", ["--no-config", "--no-video", "--ao=null", "--start=3600", url]))
    }
    print("Resume benchmark: a 2-hour 32 kb/s MP3 (28.8 MB) at 1 MB/s, from 1:00:00, nothing cached, median of \(runs) runs")
    print("")
    print("| run | median | range | vs mpv |")
    print("|---|---|---|---|")
    func row(_ name: String, _ times: [Double]) {
        let range = String(format: "%.2f–%.2f s", times.min()!, times.max()!)
        print("| \(name) | \(String(format: "%.2f", median(times))) s | \(range) | \(String(format: "%.2f", median(times) / median(mpv)))× |")
    }
    row("`mpv --start=3600 URL` (to its audio output)", mpv)
    row("`mediaplay play URL --start 3600` (to its playing line)", ours)
    headline(
        "resume at 1:00:00 of a 2-hour download at 1 MB/s", mediaplay: String(format: "%.2f s", median(ours)),
        anchor: String(format: "mpv %.2f s", median(mpv)), ratio: median(ours) / median(mpv), target: "≤ 0.1×"
    )
    print("")
    print("mediaplay's requests per run: \(requests.map(String.init).joined(separator: ", ")) (the main transfer, and a range from the seek)")
}
