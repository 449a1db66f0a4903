import Foundation
import TestKit

/// What a finished process used, from wait4.
struct Measured {
    var wall: Double
    var cpu: Double
    var maxRSSKiB: Int
    var stderr: String
}

/// Runs a command with extra environment variables; returns its wall time,
/// CPU time (user + system, all threads), peak RSS and stderr; fails loudly
/// on a non-zero exit. The test kit's runner reaps with wait4 directly:
/// Foundation's Process on Linux notices the exit only at its run loop's
/// next tick (about 0.1 s), which would swamp what we measure.
///
/// wait4's peak RSS of a child spawned by this process includes this
/// process's own (posix_spawn shares its memory until the exec, and Linux
/// keeps that high-water mark), so `peakRSS` runs the command under GNU time,
/// which forks, and reads the peak from it (a millisecond more of wall time).
func measured(_ executable: String, _ args: [String], environment extra: [String: String] = [:], peakRSS: Bool = false) -> Measured {
    let errorFile = NSTemporaryDirectory() + "/mediaplay-bench-\(getpid()).err"
    let timeFile = NSTemporaryDirectory() + "/mediaplay-bench-\(getpid()).time"
    var environment = ProcessInfo.processInfo.environment
    environment.merge(extra) { $1 }
    let (program, words) = peakRSS ? ("/usr/bin/time", ["-o", timeFile, "-f", "%M", executable] + args) : (executable, args)
    let start = monotonic()
    guard let child = try? ChildProcess(program, words, environment: environment, stderr: errorFile) else { fatalError("cannot run \(program)") }
    let (status, usage) = child.waitWithUsage()
    let wall = monotonic() - start
    let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: errorFile)
    if status != 0 { fatalError("\(executable) \(args.joined(separator: " ")) exited with status \(status): \(stderr)") }
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    var peak = usage.ru_maxrss
    if peakRSS {
        let text = (try? String(contentsOfFile: timeFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: timeFile)
        guard let kib = text.split(separator: "\n").last.flatMap({ Int($0) }) else { fatalError("GNU time gave no peak RSS: \(text)") }
        peak = kib
    }
    return Measured(wall: wall, cpu: cpu, maxRSSKiB: peak, stderr: stderr)
}

/// CPU seconds this process has used so far, all threads.
func processCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func monotonic() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
