import Foundation
import MediaControl
import MediaModel
import TestKit

// The reliability issue's slow observer: an `observe` client that reads 200
// bytes a second while another client floods seeks. The daemon drops the
// observer once a megabyte waits for it; its memory must stay flat (target:
// under 20 MB of growth over the flood).

func observersBenchmark(seconds: Int) async throws {
    let tone = try await Fixtures.make("bench-tone-600s.wav", ["-f", "lavfi", "-i", "sine=duration=600", "-c:a", "pcm_s16le"])
    let folder = try TemporaryDirectory()
    let feed = try folder.write("feed.json", #"[{"type": 1, "title": "Long", "url": "file://\#(tone)"}]"#)
    let environment = [
        "MEDIAPLAY_FEED": feed, "XDG_RUNTIME_DIR": folder.path + "/run", "XDG_STATE_HOME": folder.path + "/state",
        "XDG_CACHE_HOME": folder.path + "/cache", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null",
    ]
    for (key, value) in environment { setenv(key, value, 1) }
    _ = measured(mediaplay, ["toggle", "1"], environment: environment)
    defer { _ = measured(mediaplay, ["quit"], environment: environment) }
    let paths = ControlPaths(runtimeDirectory: folder.path + "/run/mediaplay")
    let pidText = try String(contentsOfFile: paths.lock, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    guard let pid = Int32(pidText) else { fatalError("no pid in \(paths.lock)") }
    try await Task.sleep(for: .seconds(2))
    let before = residentMiB(pid)

    // The slow observer, on a thread of its own: 20 bytes every 100 ms.
    let observer = try UnixSocket.connected(to: paths.socket)
    try observer.write(Array(#"{"id":1,"cmd":"observe"}"#.utf8) + [0x0A])
    let deadline = Date().addingTimeInterval(Double(seconds))
    let observed = Thread {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 20, alignment: 1)
        defer { buffer.deallocate() }
        while Date() < deadline, observer.read(into: buffer) > 0 { usleep(100_000) }
    }
    observed.start()

    // The flood: one seek after another, each reply read.
    guard let client = try ControlClient.connect(paths) else { fatalError("no daemon at \(paths.socket)") }
    var seeks = 0
    while Date() < deadline {
        _ = try client.call(ControlRequest(.seek(.to(Double(seeks % 500)), nil)), as: ItemStatusProbe.self)
        seeks += 1
    }
    let after = residentMiB(pid)
    print("Background player memory under a slow observer (200 B/s) and a flood of seeks for \(seconds) s, RSS from /proc/\(pid)/status")
    print("")
    print("| seeks | RSS before | RSS after | peak (VmHWM) | growth | target |")
    print("|---|---|---|---|---|---|")
    print(String(format: "| %d | %.1f MiB | %.1f MiB | %.1f MiB | %.1f MiB | under 20 MB |", seeks, before.rss, after.rss, after.peak, after.rss - before.rss))
}

/// VmRSS and VmHWM of `pid`, in MiB.
private func residentMiB(_ pid: Int32) -> (rss: Double, peak: Double) {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let value = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return 0 }
        return value / 1024
    }
    return (field("VmRSS:"), field("VmHWM:"))
}
