import Foundation
import MediaControl
import TestKit

// The background player's memory over many requests (the hardening issue's
// leak check): a warm daemon with SDL's dummy drivers, driven over its socket,
// resident memory read from /proc after a warm-up and after each thousand.

func memoryBenchmark(count: Int) async throws {
    let tone = try await Fixtures.make("bench-tone-30s.wav", [
        "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)*0.4|sin(550*2*PI*t)*0.4:s=44100:d=30", "-c:a", "pcm_s16le",
    ])
    let picture = try await Fixtures.make("bench-picture.png", ["-f", "lavfi", "-i", "testsrc2=size=640x360", "-frames:v", "1"])
    let folder = try TemporaryDirectory()
    let feed = try folder.write("feed.json", #"""
        [{"type": 0, "title": "Picture", "url": "file://\#(picture)"},
         {"type": 1, "title": "Tone", "url": "file://\#(tone)"}]
        """#)
    let environment = [
        "MEDIAPLAY_FEED": feed, "XDG_RUNTIME_DIR": folder.path + "/run", "XDG_STATE_HOME": folder.path + "/state",
        "XDG_CACHE_HOME": folder.path + "/cache", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null",
        "SDL_VIDEODRIVER": "dummy",
    ]
    for (key, value) in environment { setenv(key, value, 1) }
    _ = measured(mediaplay, ["daemon"], environment: environment)
    defer { _ = measured(mediaplay, ["quit"], environment: environment) }
    let paths = ControlPaths(runtimeDirectory: folder.path + "/run/mediaplay")
    guard let client = try ControlClient.connect(paths) else { fatalError("no daemon at \(paths.socket)") }
    let pidText = try String(contentsOfFile: paths.lock, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    guard let pid = Int32(pidText) else { fatalError("no pid in \(paths.lock)") }

    print("Background player memory, \(count) requests after a warm-up of 100, RSS from /proc/\(pid)/status")
    print("")
    // The anonymous part is the heap, where a leak shows; the rest is the
    // program's and its libraries' pages, first touched as code runs.
    print("| requests | RSS after warm-up | after \(count / 2) | after \(count) | growth over the last \(count / 2) | growth over \(count) | of it anonymous (RssAnon) |")
    print("|---|---|---|---|---|---|---|")
    // An image toggle opens its window, the next one closes it; an audio
    // toggle pauses or resumes the playing tone.
    for (label, number) in [("image toggles (a window opened and closed)", 1), ("audio pause/resume", 2)] {
        for _ in 0..<100 { _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(number)), as: ItemStatusProbe.self) }
        let warm = residentKiB(pid)
        let warmAnonymous = residentKiB(pid, field: "RssAnon:")
        for _ in 0..<count / 2 { _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(number)), as: ItemStatusProbe.self) }
        let half = residentKiB(pid)
        for _ in 0..<count / 2 { _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(number)), as: ItemStatusProbe.self) }
        let end = residentKiB(pid)
        let endAnonymous = residentKiB(pid, field: "RssAnon:")
        func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }
        print("| \(label) | \(mib(warm)) | \(mib(half)) | \(mib(end)) | \(mib(end - half)) | \(mib(end - warm)) | \(mib(endAnonymous - warmAnonymous)) |")
        _ = try client.call(ControlRequest(id: nil, cmd: .stop), as: ItemStatusProbe.self)
    }
}

/// A resident size of `pid` from /proc (VmRSS, or another field), in KiB.
private func residentKiB(_ pid: Int32, field: String = "VmRSS:") -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
          let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return value
}
