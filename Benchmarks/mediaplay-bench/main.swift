import Foundation
import TestKit

// Benchmarks that compare mediaplay with the reference tools, side by side in
// one run, on this machine. Not tests: run on demand with `make bench`; the
// figures go to docs/PERFORMANCE.md.
//
//   mediaplay-bench download [--size-mib 200] [--runs 3]
//   mediaplay-bench playback [--runs 3] [--only a|b|c]
//   mediaplay-bench control [--runs 3]
//   mediaplay-bench progressive [--runs 3]
//   mediaplay-bench feeds [--runs 3]
//   mediaplay-bench podcast [--runs 3]
//   mediaplay-bench folder [--runs 3]
//   mediaplay-bench resume [--runs 3]
//   mediaplay-bench controls [--runs 3]
//   mediaplay-bench terminal [--runs 3]
//   mediaplay-bench subtitles [--runs 3]
//   mediaplay-bench search [--runs 3]
//   mediaplay-bench loudness [--runs 3]
//   mediaplay-bench page [--runs 3]
//   mediaplay-bench mpd [--count 1000] [--clients 100] [--rounds 20]
//   mediaplay-bench library [--runs 3] [--songs 10000]



let arguments = Array(CommandLine.arguments.dropFirst())
// No loudness measured in the background of what is timed (the loudness
// benchmark measures it in the foreground).
setenv("MEDIAPLAY_MEASURE_LOUDNESS", "0", 1)
guard let command = arguments.first else {
    print("usage: mediaplay-bench download [--size-mib N] [--runs N] | playback [--runs N] | control [--runs N] | progressive [--runs N] | feeds [--runs N] | podcast [--runs N] | folder [--runs N] | resume [--runs N] | controls [--runs N] | terminal [--runs N] | subtitles [--runs N] | loudness [--runs N] | page [--runs N] | memory [--count N] | mpd [--count N] [--clients N] [--rounds N] | library [--runs N] [--songs N]")
    exit(64)
}

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let number = Int(arguments[index + 1]) else { return value }
    return number
}

/// The mediaplay binary built beside this one.
let mediaplay: String = {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return (me as NSString).deletingLastPathComponent + "/mediaplay"
}()

/// Runs a command and returns its wall time in seconds; fails loudly on a
/// non-zero exit.
func timed(_ executable: String, _ args: [String], settle: Bool = true) -> Double {
    // Start each run with no dirty pages left by the previous one (curl never
    // syncs its file, so its writeback would otherwise land on the next run).
    if settle { sync() }
    return measured(executable, args).wall
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func mib(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

switch command {
case "download":
    let sizeMiB = option("--size-mib", default: 200)
    let runs = option("--runs", default: 3)
    let server = try TestHTTPServer()
    let scratch = try TemporaryDirectory()
    let size = sizeMiB << 20
    server.serve("/big.bin", bytes: TestHTTPServer.bytes(count: size, seed: 1))
    let eight = (1...8).map { "/part\($0).bin" }
    for (index, path) in eight.enumerated() {
        server.serve(path, bytes: TestHTTPServer.bytes(count: size / 8, seed: UInt64(10 + index)))
    }
    let feed = try scratch.write("feed.json", """
        {"title": "bench", "items": [
          {"type": 2, "url": "\(server.url("/big.bin").absoluteString)"},
        \(eight.map { #"  {"type": 2, "url": "\#(server.url($0).absoluteString)"}"# }.joined(separator: ",\n"))
        ]}
        """)
    print("Download benchmark: \(sizeMiB) MiB over loopback from the test kit's HTTP server, median of \(runs) runs")
    

    var curlSynced: [Double] = []
    var curlOne: [Double] = []
    var mediaplayOne: [Double] = []
    var curlEight: [Double] = []
    var curlEightSynced: [Double] = []
    var mediaplayEight: [Double] = []
    for run in 1...runs {
        let out = scratch.path + "/curl-\(run).bin"
        curlOne.append(timed("/usr/bin/curl", ["-sS", "-f", "-o", out, server.url("/big.bin").absoluteString]))
        try? FileManager.default.removeItem(atPath: out)
        // curl then fsync of its file: the durability mediaplay pays for before it calls an entry cached.
        curlSynced.append(timed("/usr/bin/curl", ["-sS", "-f", "-o", out, server.url("/big.bin").absoluteString]) + timed("/usr/bin/sync", [out], settle: false))
        try? FileManager.default.removeItem(atPath: out)

        let cache = scratch.path + "/cache-\(run)"
        mediaplayOne.append(timed(mediaplay, ["fetch", "1", "--feed", feed, "--cache-dir", cache]))
        try? FileManager.default.removeItem(atPath: cache)

        let folder = scratch.path + "/curl8-\(run)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var curlArgs = ["-sS", "-f", "-Z", "--parallel-max", "8", "--output-dir", folder]
        for path in eight { curlArgs += ["-o", String(path.dropFirst()), server.url(path).absoluteString] }
        curlEight.append(timed("/usr/bin/curl", curlArgs))
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        curlEightSynced.append(timed("/usr/bin/curl", curlArgs) + timed("/usr/bin/sync", eight.map { folder + $0 }, settle: false))
        try? FileManager.default.removeItem(atPath: folder)

        let cache8 = scratch.path + "/cache8-\(run)"
        mediaplayEight.append(timed(mediaplay, ["fetch", "2", "3", "4", "5", "6", "7", "8", "9", "--jobs", "8", "--feed", feed, "--cache-dir", cache8]))
        try? FileManager.default.removeItem(atPath: cache8)
    }
    func row(_ name: String, _ times: [Double], _ bytes: Int, reference: Double) {
        let seconds = median(times)
        let rate = mib(bytes) / seconds
        let range = String(format: "%.3f–%.3f s", times.min()!, times.max()!)
        print("| \(name) | \(String(format: "%.3f", seconds)) s | \(range) | \(String(format: "%.0f", rate)) MiB/s | \(String(format: "%.2f", reference / seconds))× |")
    }
    print("")
    // Against curl with sync: mediaplay fsyncs every file before it calls it cached.
    print("| run | median | range | throughput | vs curl + sync |")
    print("|---|---|---|---|---|")
    row("curl, 1 × \(sizeMiB) MiB", curlOne, size, reference: median(curlSynced))
    row("curl + sync FILE, 1 × \(sizeMiB) MiB", curlSynced, size, reference: median(curlSynced))
    row("mediaplay fetch, 1 × \(sizeMiB) MiB", mediaplayOne, size, reference: median(curlSynced))
    row("curl -Z, 8 × \(sizeMiB / 8) MiB", curlEight, size, reference: median(curlEightSynced))
    row("curl -Z + sync FILES, 8 × \(sizeMiB / 8) MiB", curlEightSynced, size, reference: median(curlEightSynced))
    row("mediaplay fetch --jobs 8, 8 × \(sizeMiB / 8) MiB", mediaplayEight, size, reference: median(curlEightSynced))
    // Throughput: the anchor's time over ours (above 1× is faster).
    headline(
        "download, 1 × \(sizeMiB) MiB (throughput vs curl + sync)", mediaplay: String(format: "%.0f MiB/s", mib(size) / median(mediaplayOne)),
        anchor: String(format: "curl + sync %.0f MiB/s", mib(size) / median(curlSynced)), ratio: median(curlSynced) / median(mediaplayOne), target: "≥ 0.9×"
    )
case "table":
    guard arguments.count == 3 else {
        print("usage: mediaplay-bench table RESULTS.jsonl docs/PERFORMANCE.md")
        exit(64)
    }
    try writeTable(results: arguments[1], document: arguments[2])
case "playback":
    let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    try await playbackBenchmark(runs: option("--runs", default: 3), only: only)
case "control":
    try await controlBenchmark(runs: option("--runs", default: 3))
case "progressive":
    try await progressiveBenchmark(runs: option("--runs", default: 3))
case "feeds":
    try feedsBenchmark(runs: option("--runs", default: 3))
case "resume":
    try resumeBenchmark(runs: option("--runs", default: 3))
case "folder":
    try await folderBenchmark(runs: option("--runs", default: 3))
case "library":
    try await libraryBenchmark(runs: option("--runs", default: 3), songs: option("--songs", default: 10_000))
case "podcast":
    try podcastBenchmark(runs: option("--runs", default: 3))
case "controls":
    try await controlsBenchmark(runs: option("--runs", default: 3))
case "loudness":
    try await loudnessBenchmark(runs: option("--runs", default: 3))
case "memory":
    try await memoryBenchmark(count: option("--count", default: 1000))
case "terminal":
    try await terminalBenchmark(runs: option("--runs", default: 3))
case "subtitles":
    try await hostileSubtitlesBenchmark(runs: option("--runs", default: 3))
case "search":
    try searchBenchmark(runs: option("--runs", default: 3))
case "observers":
    try await observersBenchmark(seconds: option("--seconds", default: 60))
case "page":
    try await pageBenchmark(runs: option("--runs", default: 3))
case "mpd":
    try await mpdBenchmark(count: option("--count", default: 1000), clients: option("--clients", default: 100), rounds: option("--rounds", default: 20))
default:
    print("unknown benchmark \(command)")
    exit(64)
}
