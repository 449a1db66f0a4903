import Foundation
import Synchronization
import MediaControl
import TestKit

// The background player against mpv's JSON IPC and MPD: the same file, the
// same audio path (SDL's disk driver, so "first sample" is the moment the
// first non-silent byte reaches the device's file), the same machine.

func controlBenchmark(runs: Int) async throws {
    let tone = try await Fixtures.make("bench-tone-30s.wav", [
        "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)*0.4|sin(550*2*PI*t)*0.4:s=44100:d=30", "-c:a", "pcm_s16le",
    ])
    let folder = try TemporaryDirectory()
    print("Background player benchmark: \(tone) (WAV, 44.1 kHz stereo, 30 s), \(runs) runs each, SDL disk audio driver")
    print("")
    try mediaplayRows(tone: tone, folder: folder, runs: runs)
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/mpv") {
        try mpvRows(tone: tone, folder: folder, runs: runs)
    } else {
        print("(mpv not installed: apt-get install mpv)")
    }
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/mpd") && FileManager.default.isExecutableFile(atPath: "/usr/bin/mpc") {
        try mpdRows(tone: tone, folder: folder, runs: runs)
    } else {
        print("(MPD not installed: apt-get install mpd mpc)")
    }
    headline(
        "toggle, a whole client process (p50)", ours: "mediaplay toggle process (exec to exit, warm daemon)",
        theirs: "mpc toggle process (exec to exit, warm MPD, null output)", anchorName: "mpc", target: "≤ 5 ms"
    )
    headline(
        "toggle a stopped item to its first sample (p50)", ours: "mediaplay toggle (stopped item) request to first sample",
        theirs: "mpv loadfile to first sample", anchorName: "mpv loadfile", target: "≤ 1×"
    )
}

func percentiles(_ label: String, _ values: [Double]) {
    let sorted = values.sorted()
    let p50 = sorted[sorted.count / 2] * 1000
    let p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)] * 1000
    print(String(format: "%-58@ p50 %7.2f ms   p90 %7.2f ms", label as NSString, p50, p90))
    medians.withLock {
        $0[label] = p50
        $0[label + " p90"] = p90
    }
}

/// Each `percentiles` row's p50 in ms, by label, for the headline rows.
let medians = Mutex<[String: Double]>([:])

/// A headline row from two `percentiles` rows of this run (when both ran).
func headline(_ measure: String, ours: String, theirs: String, anchorName: String, target: String) {
    guard let mine = medians.withLock({ $0[ours] }), let anchor = medians.withLock({ $0[theirs] }) else { return }
    headline(measure, mediaplay: String(format: "%.2f ms", mine), anchor: String(format: "%@ %.2f ms", anchorName, anchor), ratio: mine / anchor, target: target)
}

/// Waits until the file at `path` holds a non-zero byte; returns when it did.
/// (A benchmark may poll: it measures, it does not ship.)
func waitForSound(in path: String, timeout: Double = 10) -> Double? {
    let deadline = monotonic() + timeout
    var checked = 0
    while monotonic() < deadline {
        if let handle = FileHandle(forReadingAtPath: path) {
            let size = Int((try? handle.seekToEnd()) ?? 0)
            if size < checked { checked = 0 }  // the device was reopened: the file starts over
            if size > checked {
                try? handle.seek(toOffset: UInt64(checked))
                let data = handle.readData(ofLength: size - checked)
                if data.contains(where: { $0 != 0 }) {
                    try? handle.close()
                    return monotonic()
                }
                checked = size
            }
            try? handle.close()
        }
        usleep(200)
    }
    return nil
}

/// A background player of its own in `folder`, with a feed of `tone`,
/// playing to the disk driver's file `disk`; `quit` ends it.
func startDaemon(tone: String, folder: TemporaryDirectory, more: [String] = [], extra: [String: String] = [:]) throws -> (environment: [String: String], disk: String) {
    let items = ([tone] + more).map { #"{"type": 1, "title": "Tone", "url": "file://\#($0)"}"# }
    let feed = try folder.write("feed.json", "[" + items.joined(separator: ", ") + "]")
    let disk = folder.path + "/mediaplay-device.raw"
    let environment = [
        "MEDIAPLAY_FEED": feed, "XDG_RUNTIME_DIR": folder.path + "/run", "XDG_STATE_HOME": folder.path + "/state",
        "XDG_CACHE_HOME": folder.path + "/cache", "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": disk,
    ]
    for (key, value) in environment { setenv(key, value, 1) }
    // The files measured beforehand, as the background would have.
    if !more.isEmpty { _ = measured(mediaplay, ["measure"] + more, environment: environment) }
    _ = measured(mediaplay, ["daemon"], environment: environment.merging(extra) { $1 })
    return (environment, disk)
}

private func mediaplayRows(tone: String, folder: TemporaryDirectory, runs: Int) throws {
    let (environment, disk) = try startDaemon(tone: tone, folder: folder)
    defer { _ = measured(mediaplay, ["quit"], environment: environment) }

    // (a) A whole `mediaplay toggle` process, exec to exit, against the warm
    // daemon: pause and resume in turn.
    _ = measured(mediaplay, ["toggle", "1"], environment: environment)
    var process: [Double] = []
    for _ in 0..<max(runs, 2) * 10 { process.append(measured(mediaplay, ["toggle", "1"], environment: environment).wall) }
    percentiles("mediaplay toggle process (exec to exit, warm daemon)", process)

    // (b) Request to reply on an open connection (pause or resume).
    // Raw lines, read until the reply's id, as the mpv row reads mpv's.
    let paths = ControlPaths(runtimeDirectory: folder.path + "/run/mediaplay")
    let lines = RawLines(try UnixSocket.connected(to: paths.socket))
    var roundTrips: [Double] = []
    for id in 1...max(runs, 2) * 10 {
        let start = monotonic()
        try lines.write(#"{"cmd":"toggle","item":1,"id":\#(id)}"#)
        let reply = lines.readUntil { $0.contains(#""id":\#(id),"#) || $0.hasSuffix(#""id":\#(id)}"#) }
        roundTrips.append(monotonic() - start)
        guard reply.contains(#""ok":true"#) else { fatalError("toggle failed: \(reply)") }
    }
    percentiles("mediaplay toggle request to reply (pause/resume)", roundTrips)
    guard let client = try ControlClient.connect(paths) else { fatalError("no daemon at \(paths.socket)") }

    // (c) Request to first sample: stop, then toggle a cached item.
    var firstSample: [Double] = []
    var replies: [Double] = []
    for _ in 0..<runs * 3 {
        _ = try client.call(ControlRequest(id: nil, cmd: .stop), as: ItemStatusProbe.self)
        usleep(300_000)  // the device is closed
        try? FileManager.default.removeItem(atPath: disk)
        let start = monotonic()
        _ = try client.call(ControlRequest(id: nil, cmd: .toggle, item: .number(1)), as: ItemStatusProbe.self)
        replies.append(monotonic() - start)
        guard let sound = waitForSound(in: disk) else { fatalError("no sound reached the device") }
        firstSample.append(sound - start)
    }
    percentiles("mediaplay toggle (stopped item) request to reply", replies)
    percentiles("mediaplay toggle (stopped item) request to first sample", firstSample)
    _ = try client.call(ControlRequest(id: nil, cmd: .stop), as: ItemStatusProbe.self)
}

/// A JSON-lines socket driven with plain bytes (no JSON decoding on the
/// measured path): the same work on our side as the mpv rows do.
final class RawLines {
    private let socket: UnixSocket
    private var splitter = LineSplitter(maximumLength: 1 << 20)
    private var pending: [String] = []

    init(_ socket: UnixSocket) {
        self.socket = socket
    }

    func write(_ line: String) throws {
        try socket.write(Array(line.utf8) + [0x0A])
    }

    /// Forgets the lines read and not matched yet.
    func discardPending() {
        pending.removeAll()
    }

    /// The first line (read so far or next) that `match` accepts; the lines before it are dropped.
    func readUntil(_ match: (String) -> Bool) -> String {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            if let index = pending.firstIndex(where: match) {
                let line = pending[index]
                pending.removeSubrange(...index)
                return line
            }
            let count = socket.read(into: buffer)
            if count <= 0 { fatalError("the socket closed") }
            for case let .line(bytes) in splitter.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                pending.append(String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}

/// Enough of a result to check it decodes; the bench needs no fields.
struct ItemStatusProbe: Decodable {}

private func mpvRows(tone: String, folder: TemporaryDirectory, runs: Int) throws {
    let mpv = try MPVSession(folder: folder)
    var restart: [Double] = []
    var firstSample: [Double] = []
    for _ in 0..<runs * 3 {
        let (restarted, sound) = try mpv.load(tone)
        restart.append(restarted)
        firstSample.append(sound)
    }
    percentiles("mpv loadfile to playback-restart", restart)
    percentiles("mpv loadfile to first sample", firstSample)
    var cycles: [Double] = []
    for _ in 0..<max(runs, 2) * 10 {
        let start = monotonic()
        try mpv.command(#""cycle","pause""#)
        cycles.append(monotonic() - start)
    }
    percentiles("mpv cycle pause request to reply", cycles)
}

private func mpdRows(tone: String, folder: TemporaryDirectory, runs: Int) throws {
    let music = folder.path + "/music"
    try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: tone, toPath: music + "/tone.wav")
    let port = 16600 + Int(getpid() % 1000)
    let config = try folder.write("mpd.conf", """
        music_directory "\(music)"
        db_file "\(folder.path)/mpd.db"
        state_file "\(folder.path)/mpd.state"
        pid_file "\(folder.path)/mpd.pid"
        log_file "\(folder.path)/mpd.log"
        bind_to_address "127.0.0.1"
        port "\(port)"
        audio_output {
            type "null"
            name "null"
        }
        """)
    _ = measured("/usr/bin/mpd", [config])
    defer { _ = measured("/usr/bin/mpd", ["--kill", config]) }
    let mpc = ["--host", "127.0.0.1", "--port", String(port)]
    _ = measured("/usr/bin/mpc", mpc + ["update", "--wait"])
    _ = measured("/usr/bin/mpc", mpc + ["add", "tone.wav"])
    _ = measured("/usr/bin/mpc", mpc + ["play"])
    var process: [Double] = []
    for _ in 0..<max(runs, 2) * 10 { process.append(measured("/usr/bin/mpc", mpc + ["toggle"]).wall) }
    percentiles("mpc toggle process (exec to exit, warm MPD, null output)", process)
}
