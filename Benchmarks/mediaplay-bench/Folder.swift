import Foundation
import TestKit

/// A folder of 500 tagged MP3s (50 albums of 10, title, artist, album and
/// track tags): `mediaplay list` the first time (every file probed, kept in
/// the cache index) against MPD's `mpc rescan --wait` (every file read),
/// then the unchanged folder listed again (only stat) against MPD's rescan
/// of an unchanged folder (a warm server). Targets, each side's worst run
/// against the other's: the first list no slower than MPD's scan; the
/// rescan at most 3× MPD's.
func folderBenchmark(runs: Int) async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mpd"), FileManager.default.isExecutableFile(atPath: "/usr/bin/mpc") else {
        print("(MPD not installed: apt-get install mpd mpc)")
        return
    }
    let scratch = try TemporaryDirectory()
    let music = scratch.path + "/music"
    let base = scratch.path + "/base.mp3"
    _ = measured("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "libmp3lame", "-b:a", "64k", base])
    for index in 0..<500 {
        let album = index / 10, track = index % 10 + 1
        let folder = music + "/Artist \(album / 5)/Album \(album)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = measured("/usr/bin/ffmpeg", [
            "-v", "error", "-i", base, "-c", "copy", "-metadata", "title=Song \(index + 1)", "-metadata", "artist=Artist \(album / 5)",
            "-metadata", "album=Album \(album)", "-metadata", "track=\(track)", folder + "/\(track) Song \(index + 1).mp3",
        ])
    }
    print("Folder benchmark: 500 tagged MP3s, \(runs) runs each, the worst of them compared")
    print("")
    // mediaplay: a fresh cache (index) each first run; the same one for the rescan.
    var first: [Double] = []
    var again: [Double] = []
    for run in 0..<runs {
        let cache = scratch.path + "/cache-\(run)"
        first.append(measured(mediaplay, ["list", "--json", "--feed", music, "--cache-dir", cache]).wall)
        // The first list starts the files' loudness measurement in the
        // background (idle priority); each timed run starts on a quiet
        // machine, as each of MPD's does, so it ends before the next.
        try await waitForProcesses(mentioning: cache)
        again.append(measured(mediaplay, ["list", "--json", "--feed", music, "--cache-dir", cache]).wall)
    }
    // MPD: a fresh database each first scan, then a rescan of the unchanged folder.
    var mpdFirst: [Double] = []
    var mpdAgain: [Double] = []
    for run in 0..<runs {
        let port = 16700 + Int(getpid() % 500) + run
        let config = try scratch.write("mpd-\(run).conf", """
            music_directory "\(music)"
            db_file "\(scratch.path)/mpd-\(run).db"
            state_file "\(scratch.path)/mpd-\(run).state"
            pid_file "\(scratch.path)/mpd-\(run).pid"
            log_file "\(scratch.path)/mpd-\(run).log"
            bind_to_address "127.0.0.1"
            port "\(port)"
            auto_update "no"
            audio_output {
                type "null"
                name "null"
            }
            """)
        _ = measured("/usr/bin/mpd", [config])
        let mpc = ["--host", "127.0.0.1", "--port", String(port)]
        // The database made at start first; then `rescan` reads every file
        // again, as a first scan does (a new database is scanned at start,
        // in the background, where it cannot be timed from outside).
        _ = measured("/usr/bin/mpc", mpc + ["--wait", "update"])
        mpdFirst.append(measured("/usr/bin/mpc", mpc + ["--wait", "rescan"]).wall)
        mpdAgain.append(measured("/usr/bin/mpc", mpc + ["--wait", "update"]).wall)
        _ = measured("/usr/bin/mpd", ["--kill", config])
    }
    // Each side's worst run is its figure (a good run's median hides the
    // slow first list a user meets); the medians are shown beside.
    print("| run | worst | median | range | worst vs MPD's worst |")
    print("|---|---|---|---|---|")
    func row(_ name: String, _ times: [Double], _ reference: [Double]) {
        let range = String(format: "%.3f–%.3f s", times.min()!, times.max()!)
        print("| \(name) | \(String(format: "%.3f", times.max()!)) s | \(String(format: "%.3f", median(times))) s | \(range) | \(String(format: "%.2f", times.max()! / reference.max()!))× |")
    }
    row("`mpc rescan --wait` (every file read)", mpdFirst, mpdFirst)
    row("`mediaplay list --json`, first (every file probed)", first, mpdFirst)
    row("`mpc update --wait`, unchanged (warm server)", mpdAgain, mpdAgain)
    row("`mediaplay list --json`, unchanged (a new process)", again, mpdAgain)
    headline(
        "list a folder of 500 tagged files, first (worst run)", mediaplay: String(format: "%.3f s", first.max()!),
        anchor: String(format: "mpc rescan %.3f s", mpdFirst.max()!), ratio: first.max()! / mpdFirst.max()!, target: "≤ 1×"
    )
    headline(
        "list the same folder, unchanged (worst run)", mediaplay: String(format: "%.3f s", again.max()!),
        anchor: String(format: "mpc update %.3f s", mpdAgain.max()!), ratio: again.max()! / mpdAgain.max()!, target: "≤ 3×"
    )
}

/// Waits for every process whose command line names `text` to end (a
/// background `measure` a list started), by each one's pidfd.
func waitForProcesses(mentioning text: String) async throws {
    let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    for pid in pids where pid != getpid() {
        guard let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
              String(decoding: line, as: UTF8.self).replacingOccurrences(of: "\0", with: " ").contains(text)
        else { continue }
        guard try await Wait.forExit(of: pid, timeout: 600) else { throw BenchError("process \(pid) (\(text)) did not end in 10 minutes") }
    }
}
