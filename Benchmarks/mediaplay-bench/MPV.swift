import Foundation
import MediaControl
import TestKit

/// An idle mpv driven over its JSON IPC socket, playing through SDL's disk
/// audio driver into `disk`, so that "first sample" is measured the same way
/// for mpv and mediaplay.
final class MPVSession {
    let disk: String
    private let pid: pid_t
    private let lines: RawLines
    private var nextID = 1

    init(folder: TemporaryDirectory, extra: [String: String] = [:]) throws {
        let socketPath = folder.path + "/mpv.sock"
        disk = folder.path + "/mpv-device.raw"
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_AUDIODRIVER"] = "disk"
        environment["SDL_DISKAUDIOFILE"] = disk
        environment.merge(extra) { $1 }
        let words = ["--idle=yes", "--no-config", "--no-terminal", "--vid=no", "--ao=sdl", "--input-ipc-server=\(socketPath)"]
        guard let child = try? ChildProcess("/usr/bin/mpv", words, environment: environment) else { fatalError("cannot start mpv") }
        pid = child.pid
        var socket: UnixSocket?
        for _ in 0..<500 where socket == nil {
            socket = try? UnixSocket.connected(to: socketPath)
            if socket == nil { usleep(10_000) }
        }
        guard let socket else { fatalError("mpv did not open its IPC socket") }
        lines = RawLines(socket)
    }

    deinit {
        // mpv with SDL's disk driver does not end on SIGTERM.
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Sends a command (a JSON array's items) and waits for its reply.
    func command(_ items: String) throws {
        let id = nextID
        nextID += 1
        try lines.write(#"{"command":[\#(items)],"request_id":\#(id)}"#)
        _ = lines.readUntil { $0.contains(#""request_id":\#(id)"#) }
    }

    /// Stops, then loads `target`: seconds from the request to mpv's
    /// playback-restart event and to the first sound on the device.
    func load(_ target: String) throws -> (restart: Double, sound: Double) {
        try command(#""stop""#)
        usleep(300_000)
        try? FileManager.default.removeItem(atPath: disk)
        lines.discardPending()
        let start = monotonic()
        try lines.write(#"{"command":["loadfile","\#(target)"]}"#)
        _ = lines.readUntil { $0.contains(#""event":"playback-restart""#) }
        let restart = monotonic() - start
        guard let sound = waitForSound(in: disk, timeout: 30) else { fatalError("no sound from mpv reached the device") }
        return (restart, sound - start)
    }
}
