import Foundation
import Glibc
import MediaControl
import MediaModel
import TestKit

// The MPD protocol issue's figures: a `status` round trip on an open
// connection (p50 of 1,000) against MPD's own on the same folder in the same
// run; the time for 100 clients in `idle player` to hear one pause (p99 over
// every client of every round), against MPD's; the background player's memory
// with 100 clients connected, against MPD's.

/// A blocking client of MPD's protocol.
private final class Connection {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { fatalError("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard line()?.hasPrefix("OK MPD") == true else { fatalError("no MPD greeting on port \(port)") }
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func line() -> String? {
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 16384)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    @discardableResult
    func call(_ command: String) -> [String] {
        send(command + "\n")
        var lines: [String] = []
        while let line = line() {
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK") { break }
        }
        return lines
    }
}

private func now() -> Double { SystemClock.shared.now }

private func percentile(_ values: [Double], _ share: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * share).rounded(.up)) - 1)]
}

/// p50 of `count` status round trips on one open connection to each
/// server, in ms: taken in turns, 50 at a time, so that whatever else the
/// machine does falls on both alike.
private func statusRoundTrips(ports: (UInt16, UInt16), count: Int) -> (Double, Double) {
    let connections = (Connection(port: ports.0), Connection(port: ports.1))
    for _ in 0..<50 {
        connections.0.call("status")
        connections.1.call("status")
    }
    var times: ([Double], [Double]) = ([], [])
    func batch(_ connection: Connection) -> [Double] {
        (0..<50).map { _ in
            let start = now()
            let answer = connection.call("status")
            guard answer.last == "OK" else { fatalError("status: \(answer)") }
            return (now() - start) * 1000
        }
    }
    while times.0.count < count {
        times.0 += batch(connections.0)
        times.1 += batch(connections.1)
    }
    return (percentile(times.0, 0.5), percentile(times.1, 0.5))
}

/// For `rounds` pauses and resumes made on another connection: how long
/// each of `clients` idle clients took to hear it, in ms (every client of every round).
private func idleWakeups(port: UInt16, clients: Int, rounds: Int) -> [Double] {
    let control = Connection(port: port)
    control.call("play 0")
    let waiting = (0..<clients).map { _ in Connection(port: port) }
    var times: [Double] = []
    for round in 0..<rounds {
        for connection in waiting { connection.send("idle player\n") }
        // Each client is told of every change since it last asked, so the
        // idles need not be under way yet; this round trip only lets the
        // server take them in before the clock starts.
        control.call("ping")
        usleep(50_000)  // no event says a remote client is waiting in idle
        let start = now()
        control.send(round % 2 == 0 ? "pause 1\n" : "pause 0\n")
        for connection in waiting {
            guard connection.line() == "changed: player" else { fatalError("an idle client heard something else") }
            times.append((now() - start) * 1000)
            _ = connection.line()
        }
        _ = control.line()
    }
    return times
}

/// VmRSS of `pid` in MiB.
private func residentMiB(_ pid: Int32) -> Double {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let value = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return 0 }
    return value / 1024
}

private func freePort() -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
    return UInt16(bigEndian: address.sin_port)
}

func mpdBenchmark(count: Int, clients: Int, rounds: Int) async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mpd") else {
        print("(MPD not installed: apt-get install mpd mpc)")
        exit(69)
    }
    let scratch = try TemporaryDirectory()
    let music = scratch.path + "/music"
    try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
    for index in 1...3 {
        let made = try await Fixtures.run("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=frequency=\(200 * index):duration=600",
            "-metadata", "title=Song \(index)", "-metadata", "artist=Artist \(index % 2)", "-metadata", "album=Album", "-c:a", "libmp3lame", "-b:a", "64k",
            "\(music)/song\(index).mp3",
        ])
        guard made.status == 0 else { fatalError("ffmpeg failed") }
    }

    // mediaplay's background player, with MPD on a free loopback port.
    let ours = freePort()
    let environment = [
        "MEDIAPLAY_FEED": music, "XDG_RUNTIME_DIR": scratch.path + "/run", "XDG_STATE_HOME": scratch.path + "/state",
        "XDG_CACHE_HOME": scratch.path + "/cache", "XDG_CONFIG_HOME": scratch.path + "/config", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null",
    ]
    for (key, value) in environment { setenv(key, value, 1) }
    // Room for the clients of every phase (those of one phase may still be
    // closing when the next connects), on both servers.
    try FileManager.default.createDirectory(atPath: scratch.path + "/config/mediaplay", withIntermediateDirectories: true)
    _ = try scratch.write("config/mediaplay/config.toml", "[mpd]\nmax-clients = 1000\n")
    _ = measured(mediaplay, ["daemon", "--mpd", "127.0.0.1:\(ours)"], environment: environment)
    defer { _ = measured(mediaplay, ["quit"], environment: environment) }
    let paths = ControlPaths(runtimeDirectory: scratch.path + "/run/mediaplay")
    guard let ourPID = Int32((try String(contentsOfFile: paths.lock, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) else { fatalError("no daemon pid") }

    // MPD on the same folder, its output a null one with a software mixer.
    let theirs = freePort()
    let config = try scratch.write("mpd.conf", """
        music_directory "\(music)"
        db_file "\(scratch.path)/mpd.db"
        pid_file "\(scratch.path)/mpd.pid"
        log_file "\(scratch.path)/mpd.log"
        bind_to_address "127.0.0.1"
        port "\(theirs)"
        max_connections "1000"
        audio_output {
            type "null"
            name "null"
            mixer_type "software"
        }
        """)
    _ = measured("/usr/bin/mpd", [config])
    defer { _ = measured("/usr/bin/mpd", ["--kill", config]) }
    let mpc = ["--host", "127.0.0.1", "--port", String(theirs)]
    _ = measured("/usr/bin/mpc", mpc + ["--wait", "update"])
    _ = measured("/usr/bin/mpc", mpc + ["add", "/"])
    guard let theirPID = Int32((try String(contentsOfFile: scratch.path + "/mpd.pid", encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) else { fatalError("no mpd pid") }

    let (ourStatus, theirStatus) = statusRoundTrips(ports: (ours, theirs), count: count)
    // In turns too, a few rounds at a time.
    var ourIdle: [Double] = []
    var theirIdle: [Double] = []
    for _ in 0..<max(1, rounds / 4) {
        ourIdle += idleWakeups(port: ours, clients: clients, rounds: 4)
        theirIdle += idleWakeups(port: theirs, clients: clients, rounds: 4)
    }

    let ourBefore = residentMiB(ourPID)
    let theirBefore = residentMiB(theirPID)
    var held: [Connection] = []
    for _ in 0..<clients {
        held.append(Connection(port: ours))
        held.append(Connection(port: theirs))
    }
    for connection in held { connection.call("status") }
    let ourWith = residentMiB(ourPID)
    let theirWith = residentMiB(theirPID)
    held.removeAll()

    print("MPD protocol: mediaplay's background player and MPD \(theirStatus > 0 ? "" : "")on the same 3-file folder, one run")
    print("")
    print("| measure | mediaplay | MPD | ratio |")
    print("|---|---|---|---|")
    print(String(format: "| status round trip, p50 of %d | %.3f ms | %.3f ms | %.2f× |", count, ourStatus, theirStatus, ourStatus / theirStatus))
    print(String(format: "| %d idle clients hear a pause, p99 (%d rounds) | %.2f ms | %.2f ms | %.2f× |", clients, rounds, percentile(ourIdle, 0.99), percentile(theirIdle, 0.99), percentile(ourIdle, 0.99) / percentile(theirIdle, 0.99)))
    print(String(format: "| RSS, idle → with %d clients | %.1f → %.1f MiB | %.1f → %.1f MiB | %.2f× (growth) |", clients, ourBefore, ourWith, theirBefore, theirWith, (ourWith - ourBefore) / max(0.1, theirWith - theirBefore)))
    headline(
        "MPD status round trip on an open connection (p50 of \(count))", mediaplay: String(format: "%.3f ms", ourStatus),
        anchor: String(format: "MPD %.3f ms", theirStatus), ratio: ourStatus / theirStatus, target: "≤ 1×"
    )
    headline(
        "\(clients) MPD clients in idle hear a pause (p99)", mediaplay: String(format: "%.2f ms", percentile(ourIdle, 0.99)),
        anchor: String(format: "MPD %.2f ms", percentile(theirIdle, 0.99)), ratio: percentile(ourIdle, 0.99) / percentile(theirIdle, 0.99), target: "≤ 10 ms"
    )
    headline(
        "background player's memory with \(clients) MPD clients (RSS)", mediaplay: String(format: "%.1f MiB", ourWith),
        anchor: String(format: "MPD %.1f MiB", theirWith), ratio: ourWith / theirWith, target: "none"
    )
}
