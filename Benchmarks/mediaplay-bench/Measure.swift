import Foundation

/// What a finished process used, from wait4.
struct Measured {
    var wall: Double
    var cpu: Double
    var maxRSSKiB: Int
    var stderr: String
}

/// Runs a command with extra environment variables; returns its wall time,
/// CPU time (user + system, all threads), peak RSS and stderr; fails loudly
/// on a non-zero exit. posix_spawn and wait4 directly: Foundation's Process on
/// Linux notices the exit only at its run loop's next tick (about 0.1 s),
/// which would swamp what we measure.
func measured(_ executable: String, _ args: [String], environment extra: [String: String] = [:]) -> Measured {
    let errorFile = NSTemporaryDirectory() + "/mediaplay-bench-\(getpid()).err"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var environment = ProcessInfo.processInfo.environment
    environment.merge(extra) { $1 }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    let argv = ([executable] + args).map { strdup($0) } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else { fatalError("cannot run \(executable)") }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &end)
    let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: errorFile)
    if status != 0 { fatalError("\(executable) \(args.joined(separator: " ")) exited with status \(status): \(stderr)") }
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    return Measured(
        wall: Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9,
        cpu: cpu, maxRSSKiB: usage.ru_maxrss, stderr: stderr
    )
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
