import Foundation
import Glibc
import Synchronization

/// Real media servers for the tests and the benchmark, each in a folder of
/// its own: Debian's Supysonic (a Subsonic server) and minidlna (a DLNA/UPnP
/// server). Each runs under a small Python guard that ends it when its
/// stdin (a FIFO this process holds open) reaches its end: when `stop()`
/// closes it, or when this process ends however it ends. No server outlives
/// the tests.
public final class GuardedServer: @unchecked Sendable {
    public let folder: TemporaryDirectory
    private let child: ChildProcess
    /// The FIFO's writing end; -1 once stopped.
    private let writer: Mutex<Int32>
    /// What the server wrote (Supysonic's log of requests: one line each).
    public let log: String

    /// Runs `command` (after `cd workingDirectory`, else `folder`) under the
    /// guard; `afterwards` runs once it has ended (a namespace deleted).
    init(
        _ command: [String], folder: TemporaryDirectory, workingDirectory: String? = nil, environment: [String: String] = [:],
        afterwards: [String] = []
    ) throws {
        self.folder = folder
        let fifo = folder.path + "/guard.fifo"
        guard mkfifo(fifo, 0o600) == 0 else { throw Fixtures.FixtureError(message: "mkfifo: \(String(cString: strerror(errno)))") }
        // Read and write: the open does not wait for a reader.
        let end = open(fifo, O_RDWR | O_CLOEXEC)
        guard end >= 0 else { throw Fixtures.FixtureError(message: "open \(fifo): \(String(cString: strerror(errno)))") }
        writer = Mutex(end)
        let script: String
        do {
            script = try folder.write("guard.py", Self.guardScript)
        } catch {
            close(end)
            throw error
        }
        log = folder.path + "/server.log"
        var env = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": folder.path, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"]
        env.merge(environment) { $1 }
        if !afterwards.isEmpty { env["GUARD_AFTERWARDS"] = afterwards.joined(separator: "\u{1F}") }
        do {
            child = try ChildProcess("/usr/bin/python3", [script, workingDirectory ?? folder.path] + command, environment: env, stdin: fifo, stdout: log, stderr: log)
        } catch {
            close(end)
            throw error
        }
    }

    /// Ends the server without waiting: a test's deinit runs on the
    /// cooperative pool, which a wait would hold (a thread of its own reaps
    /// the guard).
    deinit {
        guard closeWriter() else { return }
        let child = self.child
        Thread { _ = child.waitUntilExit() }.start()
    }

    /// Ends the server and waits for it (its guard ends it, then exits).
    public func stop() async {
        guard closeWriter() else { return }
        let child = self.child
        _ = await offPool { child.waitUntilExit() }
    }

    /// Closes the FIFO the guard reads (its end ends the server); false
    /// when it was closed already.
    private func closeWriter() -> Bool {
        let end = writer.withLock { end in
            defer { end = -1 }
            return end
        }
        guard end >= 0 else { return false }
        close(end)
        return true
    }

    /// The server's log so far.
    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Starts the command in `argv[1]`'s folder, ends it when stdin ends.
    static let guardScript = #"""
        import os, signal, subprocess, sys, threading
        def ended(number, frame):
            raise SystemExit(1)
        # Ended by a signal: the finally below still runs (the namespace deleted).
        signal.signal(signal.SIGTERM, ended)
        signal.signal(signal.SIGHUP, ended)
        os.chdir(sys.argv[1])
        server = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL)
        def watch():
            sys.stdin.buffer.read()
            server.terminate()
        threading.Thread(target=watch, daemon=True).start()
        try:
            server.wait(timeout=None)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
            afterwards = os.environ.get("GUARD_AFTERWARDS")
            if afterwards:
                subprocess.run(afterwards.split("\x1f"), stdin=subprocess.DEVNULL)
        """#
}

/// Debian 12's Supysonic 0.7.2 on loopback: its own config file and SQLite
/// database in a temporary folder, a user `alice` (password `secret`), a
/// music folder scanned with `supysonic-cli`, and its Flask app served by
/// Python's own WSGI server (threaded), which logs every request.
public final class SupysonicServer: @unchecked Sendable {
    public let server: GuardedServer
    public let port: UInt16
    public let music: String
    public static let user = "alice"
    public static let password = "secret"

    /// `subsonic+http://alice:secret@127.0.0.1:PORT`.
    public var feed: String { "subsonic+http://\(Self.user):\(Self.password)@127.0.0.1:\(port)" }

    /// `make` writes the music into the folder it is given, before the
    /// scan. `library`: a folder kept between runs (the benchmark's 10,000
    /// songs): made and scanned only once, when it holds no finished scan.
    public static func start(library: String? = nil, make: (String) async throws -> Void) async throws -> SupysonicServer {
        let scratch = try TemporaryDirectory()
        let path = library ?? scratch.path
        let music = path + "/music"
        let ready = path + "/scanned"
        let prepared = FileManager.default.fileExists(atPath: ready)
        if !prepared {
            try? FileManager.default.removeItem(atPath: music)
            try? FileManager.default.removeItem(atPath: path + "/supysonic.db")
            try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
            try await make(music)
        }
        // Read from the current folder by the server, from ~/.supysonic by supysonic-cli.
        let configuration = """
            [base]
            database_uri = sqlite:///\(path)/supysonic.db
            [webapp]
            cache_dir = \(scratch.path)/cache
            mount_webui = no
            log_level = WARNING
            [daemon]
            socket = \(scratch.path)/daemon.sock
            run_watcher = no
            """
        _ = try scratch.write("supysonic.conf", configuration)
        _ = try scratch.write(".supysonic", configuration)
        let environment = ["HOME": scratch.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        if !prepared {
            for arguments in [["user", "add", user, "-p", password], ["folder", "add", "music", music], ["folder", "scan", "music"]] {
                let result = try await Fixtures.run("/usr/bin/supysonic-cli", arguments, environment: environment)
                guard result.status == 0 else { throw Fixtures.FixtureError(message: "supysonic-cli \(arguments.joined(separator: " ")): \(String(decoding: result.stderr, as: UTF8.self))") }
            }
            _ = FileManager.default.createFile(atPath: ready, contents: nil)
        }
        _ = try scratch.write("serve.py", #"""
            import socketserver, sys
            from wsgiref.simple_server import make_server, WSGIServer, WSGIRequestHandler
            from supysonic.web import create_application
            class Server(socketserver.ThreadingMixIn, WSGIServer):
                daemon_threads = True
            class Handler(WSGIRequestHandler):
                # Each request said before it is answered: a client that has
                # its answer finds its request in the log.
                def parse_request(self):
                    parsed = super().parse_request()
                    if parsed:
                        sys.stderr.write("request %s\n" % self.requestline)
                        sys.stderr.flush()
                    return parsed
                def log_request(self, code="-", size="-"):
                    pass
                def log_message(self, format, *args):
                    sys.stderr.write("%s\n" % (format % args))
                    sys.stderr.flush()
            server = make_server("127.0.0.1", 0, create_application(), server_class=Server, handler_class=Handler)
            with open("port.txt.new", "w") as f:
                f.write(str(server.server_port))
            import os
            os.rename("port.txt.new", "port.txt")
            server.serve_forever()
            """#)
        let server = try GuardedServer(["/usr/bin/python3", scratch.path + "/serve.py"], folder: scratch, environment: environment)
        let portFile = scratch.path + "/port.txt"
        guard try await Wait.forFile(portFile, timeout: 60),
              let port = UInt16((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "")
        else {
            throw Fixtures.FixtureError(message: "Supysonic did not start: \(server.logText)")
        }
        return SupysonicServer(server: server, port: port, music: music)
    }

    init(server: GuardedServer, port: UInt16, music: String) {
        self.server = server
        self.port = port
        self.music = music
    }

    /// The requests the server logged for `method` (`stream`, `scrobble`…).
    public func requests(_ method: String) -> [String] {
        server.logText.split(separator: "\n").map(String.init).filter { $0.hasPrefix("request ") && $0.contains("/rest/\(method).view") }
    }

    /// One API call with curl, as a client would make it (token-less:
    /// Supysonic 0.7 takes the password form only).
    public func call(_ method: String, _ query: String = "") async throws -> String {
        let hex = Self.password.utf8.map { String(format: "%02x", $0) }.joined()
        let url = "http://127.0.0.1:\(port)/rest/\(method).view?u=\(Self.user)&p=enc:\(hex)&v=1.10.2&c=test&f=json" + (query.isEmpty ? "" : "&" + query)
        return String(decoding: try await Fixtures.run("/usr/bin/curl", ["-sS", "--max-time", "30", url]).stdout, as: UTF8.self)
    }
}

/// minidlna in a network namespace of its own (we are root): its loopback
/// up and carrying multicast, so SSDP's M-SEARCH reaches it, and no other
/// machine or test sees it; the namespace goes with the server. `mediaplay`
/// runs the program inside it.
public final class MiniDLNAServer: @unchecked Sendable {
    public let server: GuardedServer
    public let namespace: String
    public let media: String
    /// Any port is free in a fresh namespace (minidlna takes no port 0).
    public static let port = 8200

    public var feed: String { "upnp+http://127.0.0.1:\(Self.port)/rootDesc.xml" }
    public var folder: TemporaryDirectory { server.folder }

    public static func start(make: (String) async throws -> Void) async throws -> MiniDLNAServer {
        let folder = try TemporaryDirectory()
        let media = folder.path + "/media"
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/db", withIntermediateDirectories: true)
        try await make(media)
        let namespace = "mediaplay-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            return try await start(in: namespace, folder: folder, media: media)
        } catch {
            // Made before the guard that deletes it: a failed setup deletes it here.
            _ = try? await Fixtures.run("/usr/sbin/ip", ["netns", "delete", namespace])
            throw error
        }
    }

    private static func start(in namespace: String, folder: TemporaryDirectory, media: String) async throws -> MiniDLNAServer {
        for command in [
            ["netns", "add", namespace], ["-n", namespace, "link", "set", "lo", "up"], ["-n", namespace, "link", "set", "lo", "multicast", "on"],
            ["-n", namespace, "route", "add", "239.0.0.0/8", "dev", "lo"],
        ] {
            let result = try await Fixtures.run("/usr/sbin/ip", command)
            guard result.status == 0 else { throw Fixtures.FixtureError(message: "ip \(command.joined(separator: " ")): \(String(decoding: result.stderr, as: UTF8.self)) (the DLNA tests make a network namespace: run them as root)") }
        }
        _ = try folder.write("minidlna.conf", """
            port=\(port)
            network_interface=lo
            media_dir=\(media)
            db_dir=\(folder.path)/db
            log_dir=\(folder.path)
            friendly_name=mediaplay test server
            inotify=no
            notify_interval=900
            """)
        let server = try GuardedServer(
            ["/usr/sbin/ip", "netns", "exec", namespace, "/usr/sbin/minidlnad", "-d", "-R", "-f", folder.path + "/minidlna.conf", "-P", folder.path + "/minidlna.pid"],
            folder: folder, afterwards: ["/usr/sbin/ip", "netns", "delete", namespace]
        )
        let dlna = MiniDLNAServer(server: server, namespace: namespace, media: media)
        // Its first scan is done when it says so (the log is written as it goes).
        guard try await Wait.forFile(server.log, containing: "Initial file scan completed", timeout: 60),
              try await Wait.forFile(server.log, containing: "HTTP listening on port", timeout: 60)
        else {
            throw Fixtures.FixtureError(message: "minidlna did not start: \(server.logText)")
        }
        return dlna
    }

    init(server: GuardedServer, namespace: String, media: String) {
        self.server = server
        self.namespace = namespace
        self.media = media
    }

    /// Its guard deletes the namespace once minidlna has ended, however this process ends.
    // Its server's own deinit ends it (without waiting).

    /// mediaplay run inside the namespace (where the server is).
    public func mediaplay(_ arguments: [String], environment: [String: String]) async throws -> RunResult {
        try await Mediaplay.start(["netns", "exec", namespace, Mediaplay.executable] + arguments, environment: environment, executable: "/usr/sbin/ip").wait()
    }
}
