import CLinux
import Foundation
import Logging
import MediaControl
import MediaDaemon
import MediaEngine
import MediaFeed
import MediaModel
import MediaSession
import MediaWiring
import Testing
import TestKit

/// A real daemon (socket, server, session) in this process, over a feed of
/// local fixtures, with a virtual clock so nothing plays in real time. Its
/// own timers (idle clients, heartbeats, expiry) run on `clock`: a test
/// that moves them hands it a `ManualClock`.
final class DaemonUnderTest: Sendable {
    let folder: TemporaryDirectory
    let paths: ControlPaths
    let daemon: Daemon
    let serving: Task<Void, Never>

    /// Over `session`, or by default over a tone and an item of an unknown type.
    init(clock: any MediaClock = SystemClock.shared, session: MediaSession? = nil) async throws {
        folder = try TemporaryDirectory()
        let session = if let session { session } else { try await Self.toneSession() }
        paths = ControlPaths(runtimeDirectory: folder.path + "/run")
        daemon = Daemon(paths: paths, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, clock: clock)
        try daemon.claim()
        let daemon = self.daemon
        serving = Task { try? await daemon.serve(session: session, feed: "test-feed", version: "test", saveInterval: 5, handleSignals: false) }
        // The socket is bound under another name and renamed once it listens.
        _ = try await Wait.forFile(paths.socket)
    }

    func stop() async {
        daemon.quit()
        await serving.value
    }

    static func toneSession() async throws -> MediaSession {
        let tone = try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
        let feed = try FeedDecoder.decode(Array("""
            [{"type": 1, "title": "Tone", "url": "file://\(tone)"},
             {"type": 7, "title": "Odd", "url": "file://\(tone)"}]
            """.utf8))
        return MediaSession(
            feed: feed, store: nil, positions: nil,
            engine: MediaPlayerFactory(clock: .virtual, audio: .sink { NullSink() }, video: .off) { _ in }
        )
    }
}

/// A raw protocol client: bytes out, lines in. One task or thread uses it
/// at a time: `next`/`reply` from tests (their reads run off the pool),
/// `blockingReply` from the threads of `onThreads`.
final class RawClient: @unchecked Sendable {
    let socket: UnixSocket
    private var splitter = LineSplitter(maximumLength: 1 << 20)
    private var lines: [[UInt8]] = []

    init(_ paths: ControlPaths) throws {
        socket = try UnixSocket.connected(to: paths.socket)
        // Wide: under ThreadSanitizer, beside the other suites, a reply took
        // over 10 s (a client counted as lost).
        socket.setReceiveTimeout(seconds: 30)
    }

    func send(_ text: String) throws { try socket.write(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) throws { try socket.write(bytes) }

    /// The next line, read on this thread (nil at end of stream or timeout).
    private func nextLine() -> [UInt8]? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { buffer.deallocate() }
        while lines.isEmpty {
            let count = socket.read(into: buffer)
            if count <= 0 { return nil }
            for case let .line(line) in splitter.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { lines.append(line) }
        }
        return lines.removeFirst()
    }

    private static func object(_ line: [UInt8]?) -> [String: Any]? {
        line.flatMap { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] }
    }

    /// The next line as a JSON object (nil at end of stream or timeout).
    func next() async -> [String: Any]? {
        Self.object(await offPool { self.nextLine() })
    }

    /// The next reply (events skipped).
    func reply() async -> [String: Any]? {
        while let line = await next() {
            if line["event"] == nil { return line }
        }
        return nil
    }

    /// `next`, blocking the calling thread (never a pool thread).
    func blockingNext() -> [String: Any]? { Self.object(nextLine()) }

    /// `reply`, blocking the calling thread (never a pool thread).
    func blockingReply() -> [String: Any]? {
        while let line = blockingNext() {
            if line["event"] == nil { return line }
        }
        return nil
    }
}

private func errorCode(_ reply: [String: Any]?) -> String? {
    (reply?["error"] as? [String: Any])?["code"] as? String
}

/// Runs `body` on `count` threads of their own at once (never on Swift's
/// cooperative pool, which the daemon under test needs) and waits for all.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.notify(queue: .global()) { done.resume() }
    }
}

private final class SocketHolder: @unchecked Sendable {
    var socket: UnixSocket?
}

private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
}

@Suite(.serialized) struct ProtocolTests {
    @Test func fiftyClientsOfAHundredRequestsEachGetEveryReply() async throws {
        let daemon = try await DaemonUnderTest()
        let complete = Tally()
        await onThreads(50) { client in
            guard let connection = try? RawClient(daemon.paths) else { return }
            // All hundred sent before reading a reply: pipelined, as fast as possible.
            var batch = ""
            for id in 0..<100 {
                batch += id % 10 == 0 ? #"{"id":\#(id),"cmd":"toggle","item":1}"# + "\n" : #"{"id":\#(id),"cmd":"status"}"# + "\n"
            }
            guard (try? connection.send(batch)) != nil else { return }
            var ids: [Int] = []
            while ids.count < 100, let reply = connection.blockingReply() {
                if reply["ok"] as? Bool == true, let id = reply["id"] as? Int { ids.append(id) }
            }
            if ids == Array(0..<100) { complete.add(client) }
        }
        #expect(complete.all.count == 50, "clients that got all 100 replies, in order")
        await daemon.stop()
    }

    @Test func badLinesGetErrorRepliesAndTheConnectionLivesOn() async throws {
        let daemon = try await DaemonUnderTest()
        let client = try RawClient(daemon.paths)
        try client.send("{\n")
        #expect(errorCode(await client.reply()) == "bad-request")
        try client.send([0xFF, 0xFE, 0x00, 0x01, 0x80, 0x0A])
        let binary = await client.reply()
        #expect(errorCode(binary) == "bad-request")
        #expect((binary?["error"] as? [String: Any])?["message"] as? String == "request is not UTF-8 JSON")
        try client.send(#"{"id":3}"# + "\n")
        let missing = await client.reply()
        #expect(errorCode(missing) == "bad-request" && missing?["id"] as? Int == 3, "the id is echoed when it can be read")
        try client.send(#"{"id":4,"cmd":"dance"}"# + "\n")
        #expect(errorCode(await client.reply()) == "unknown-command")
        try client.send(#"{"id":5,"cmd":"toggle"}"# + "\n")
        #expect(errorCode(await client.reply()) == "bad-request")
        try client.send(#"{"id":6,"cmd":"toggle","item":9}"# + "\n")
        #expect(errorCode(await client.reply()) == "no-such-item")
        // The ends of Int's range: no such item (Int.min killed the daemon).
        try client.send(#"{"id":61,"cmd":"toggle","item":-9223372036854775808}"# + "\n")
        #expect(errorCode(await client.reply()) == "no-such-item")
        try client.send(#"{"id":62,"cmd":"toggle","item":9223372036854775807}"# + "\n")
        #expect(errorCode(await client.reply()) == "no-such-item")
        try client.send(#"{"id":63,"cmd":"seek","item":1,"seconds":1e300}"# + "\n")
        #expect(await client.reply()?["id"] as? Int == 63, "a seek far past any end is answered")
        try client.send(#"{"id":7,"cmd":"toggle","item":2}"# + "\n")
        #expect(errorCode(await client.reply()) == "invalid-item")
        try client.send(#"{"id":8,"cmd":"toggle","item":1,"feed":"another-feed"}"# + "\n")
        #expect(errorCode(await client.reply()) == "wrong-feed")
        try client.send(#"{"id":9,"cmd":"seek","item":1,"seconds":"soon"}"# + "\n")
        #expect(errorCode(await client.reply()) == "bad-request")
        // Over-long: a megabyte without a newline, then the newline.
        try client.send(String(repeating: "x", count: 1 << 20) + "\n")
        #expect(errorCode(await client.reply()) == "line-too-long")
        try client.send(#"{"id":10,"cmd":"status"}"# + "\n")
        let alive = await client.reply()
        #expect(alive?["ok"] as? Bool == true && alive?["id"] as? Int == 10, "the same connection still works")
        // Truncated: the client hangs up in the middle of a request.
        try client.send(#"{"id":11,"cmd":"sta"#)
        client.socket.shutdownWriting()
        #expect(errorCode(await client.reply()) == "bad-request")
        #expect(await client.next() == nil, "then the daemon closes the connection")
        // And serves the next client as before.
        let next = try RawClient(daemon.paths)
        try next.send(#"{"id":1,"cmd":"status"}"# + "\n")
        #expect(await next.reply()?["ok"] as? Bool == true)
        await daemon.stop()
    }

    @Test func observersGetStateEvents() async throws {
        let daemon = try await DaemonUnderTest()
        let observer = try RawClient(daemon.paths)
        try observer.send(#"{"id":1,"cmd":"observe"}"# + "\n")
        #expect(await observer.reply()?["ok"] as? Bool == true)
        let player = try RawClient(daemon.paths)
        try player.send(#"{"id":1,"cmd":"toggle","item":1}"# + "\n")
        #expect((await player.reply()?["result"] as? [String: Any])?["state"] as? String == "playing")
        var event: [String: Any]?
        while let line = await observer.next() {
            if line["event"] as? String == "state" { event = line; break }
        }
        #expect(event?["item"] as? Int == 1 && event?["state"] as? String == "playing")
        await daemon.stop()
    }

    @Test(.enabled(if: getuid() == 0, "needs root to act as another user"))
    func anotherUserIsRefused() async throws {
        let daemon = try await DaemonUnderTest()
        // As created: the directory (0700) and socket (0600) keep others out.
        let blocked = Tally()
        await onThreads(1) { _ in
            guard mp_set_thread_ids(65534, 65534) == 0 else { return }
            do {
                _ = try UnixSocket.connected(to: daemon.paths.socket)
            } catch let error as SocketError {
                blocked.add(Int(error.code))
            } catch {
                blocked.add(-1)
            }
        }
        #expect(blocked.all == [Int(EACCES)], "connect as nobody fails with EACCES")
        // Loosened by someone: the peer check still refuses.
        chmod(daemon.folder.path, 0o755)
        chmod(daemon.paths.runtimeDirectory, 0o755)
        chmod(daemon.paths.socket, 0o666)
        let refused = Tally()
        await onThreads(1) { _ in
            guard mp_set_thread_ids(65534, 65534) == 0, let client = try? RawClient(daemon.paths) else { return }
            try? client.send(#"{"id":1,"cmd":"status"}"# + "\n")
            if errorCode(client.blockingReply()) == "forbidden", client.blockingNext() == nil { refused.add(1) }
        }
        #expect(refused.all == [1], "nobody's request is refused and the connection closed")
        await daemon.stop()
    }

    /// Another user's directory, or another user's daemon in ours: the
    /// client refuses before it sends a byte (with XDG_RUNTIME_DIR unset,
    /// /tmp/mediaplay-UID can be made by anyone).
    @Test(.enabled(if: getuid() == 0, "needs root to act as another user"))
    func theClientRefusesAForeignDaemon() async throws {
        let folder = try TemporaryDirectory()
        chmod(folder.path, 0o755)
        let paths = ControlPaths(runtimeDirectory: folder.path + "/run")
        let listening = Tally()
        let holder = SocketHolder()
        // As nobody would have made it: nobody's, open to all.
        mkdir(paths.runtimeDirectory, 0o777)
        chmod(paths.runtimeDirectory, 0o777)
        chown(paths.runtimeDirectory, 65534, 65534)
        await onThreads(1) { _ in
            guard mp_set_thread_ids(65534, 65534) == 0 else { return }
            if let socket = try? UnixSocket.listening(at: paths.socket) {
                holder.socket = socket
                listening.add(1)
            }
        }
        #expect(listening.all == [1], "nobody's fake daemon listens")
        #expect(throws: ControlClientError.self) { _ = try ControlClient.connect(paths) }
        do {
            _ = try ControlClient.connect(paths)
        } catch {
            #expect("\(error)".contains("belongs to uid 65534"), "\(error)")
        }
        // The directory made ours but open to all: refused, and left as it
        // is (it may be a shared folder a setting pointed at: never chmod).
        chown(paths.runtimeDirectory, 0, 0)
        do {
            _ = try ControlClient.connect(paths)
            Issue.record("used a runtime directory open to others")
        } catch {
            #expect("\(error)".contains("others can enter it (mode 777)"), "\(error)")
        }
        var info = stat()
        #expect(lstat(paths.runtimeDirectory, &info) == 0 && info.st_mode & 0o777 == 0o777)
        // Closed by its owner: the daemon in it is still nobody's, refused by its peer uid.
        chmod(paths.runtimeDirectory, 0o700)
        do {
            _ = try ControlClient.connect(paths)
            Issue.record("connected to a daemon of uid 65534")
        } catch {
            #expect("\(error)".contains("runs as uid 65534"), "\(error)")
        }
        withExtendedLifetime(holder) {}
    }

    /// A link planted as the lock (in a directory that was once open to
    /// others) is never followed: its target keeps its bytes.
    @Test func aPlantedLockLinkIsNotFollowed() async throws {
        let folder = try TemporaryDirectory()
        let paths = ControlPaths(runtimeDirectory: folder.path + "/run")
        mkdir(paths.runtimeDirectory, 0o700)
        let victim = try folder.write("precious.txt", "do not truncate me\n")
        symlink(victim, paths.lock)
        let daemon = Daemon(paths: paths, logger: Logger(label: "test"))
        #expect(throws: DaemonError.self) { try daemon.claim() }
        do {
            try daemon.claim()
        } catch {
            #expect(error.message.contains("symbolic link"), "\(error.message)")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "do not truncate me\n")
    }

    @Test func oneDaemonPerRuntimeDirectoryAndStaleSocketsAreReplaced() async throws {
        let folder = try TemporaryDirectory()
        let paths = ControlPaths(runtimeDirectory: folder.path + "/run")
        // A socket file with nobody behind it, as a crash leaves it.
        mkdir(paths.runtimeDirectory, 0o700)
        _ = try UnixSocket.listening(at: paths.socket)
        #expect(FileManager.default.fileExists(atPath: paths.socket))
        #expect(throws: SocketError.self) { try UnixSocket.connected(to: paths.socket) }

        let first = Daemon(paths: paths, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try first.claim()
        var info = stat()
        stat(paths.runtimeDirectory, &info)
        #expect(info.st_mode & 0o777 == 0o700)
        let second = Daemon(paths: paths, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        #expect { try second.claim() } throws: { ($0 as? DaemonError)?.kind == .alreadyRunning }

        let session = MediaSession(feed: try FeedDecoder.decode(Array("[]".utf8)), store: nil, positions: nil,
                                   engine: MediaPlayerFactory(clock: .virtual, audio: .off, video: .off) { _ in })
        let serving = Task { try? await first.serve(session: session, feed: "f", version: "t", saveInterval: 5, handleSignals: false) }
        // The stale socket is there from the start: the new one is renamed
        // over it once it listens, so each change in the folder is a try.
        var connected: RawClient?
        try await Wait.until(changesAt: paths.runtimeDirectory) {
            connected = try? RawClient(paths)
            return connected != nil
        }
        guard let client = connected else {
            Issue.record("no connection to the daemon")
            first.quit()
            await serving.value
            return
        }
        stat(paths.socket, &info)
        #expect(info.st_mode & 0o777 == 0o600, "the socket is the owner's only")
        try client.send(#"{"id":1,"cmd":"quit"}"# + "\n")
        #expect(await client.reply()?["ok"] as? Bool == true)
        await serving.value
        #expect(!FileManager.default.fileExists(atPath: paths.socket), "quit removes the socket")
        try second.claim()
    }
}

/// The server's bounds: idle clients go, observers stay, and a full house
/// makes room for a new client instead of locking everyone out.
@Suite struct ServerBoundsTests {
    final class Server: Sendable {
        let folder: TemporaryDirectory
        let path: String
        let server: ControlServer

        init(idleTimeout: Double, clock: any MediaClock = SystemClock.shared) throws {
            folder = try TemporaryDirectory()
            path = folder.path + "/s.sock"
            let listener = try UnixSocket.listening(at: path)
            // Echoes each line; "observe" marks the connection an observer.
            server = ControlServer(listener: listener, idleTimeout: idleTimeout, clock: clock, log: { _ in }) { piece, connection in
                guard case let .line(bytes) = piece else { return .now(Array("bad\n".utf8)) }
                if bytes == Array("observe".utf8) { connection.markObserving() }
                return .now(bytes + [0x0A])
            }
            server.start()
        }
    }

    /// Reads until the peer closes, or `seconds` pass (then false).
    static func closedWithin(_ socket: UnixSocket, seconds: Double) async -> Bool {
        await offPool {
            socket.setReceiveTimeout(seconds: seconds)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                switch socket.readOrTimeout(into: buffer) {
                case .data: continue
                case .end: return true
                case .timedOut: return false
                }
            }
        }
    }

    /// The line the server echoes (nil if none comes within 10 s).
    static func echo(_ line: String, through socket: UnixSocket) async throws -> String? {
        try socket.write(Array((line + "\n").utf8))
        return await offPool { () -> String? in
            socket.setReceiveTimeout(seconds: 10)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
            defer { buffer.deallocate() }
            guard case let .data(count) = socket.readOrTimeout(into: buffer) else { return nil }
            return String(decoding: buffer[0..<count], as: UTF8.self)
        }
    }

    /// On the server's clock: the silent client goes when the clock passes
    /// its idle time (not before), the observer stays however long it is silent.
    @Test(.timeLimit(.minutes(1))) func anIdleClientIsClosedAndAnObserverIsNot() async throws {
        let clock = ManualClock()
        let server = try Server(idleTimeout: 60, clock: clock)
        let observer = try UnixSocket.connected(to: server.path)
        // Answered: it is an observer from here on.
        #expect(try await Self.echo("observe", through: observer) == "observe\n")
        // Answered: its silence counts from this reply.
        let idle = try UnixSocket.connected(to: server.path)
        #expect(try await Self.echo("ping", through: idle) == "ping\n")
        // Each connection's idle alarm is set.
        await clock.waitForSleepers(2)
        clock.advance(by: 59.9)
        #expect(clock.sleeperCount == 2, "no alarm rang before the idle time")
        clock.advance(by: 0.1)
        #expect(await Self.closedWithin(idle, seconds: 30), "the silent client is closed")
        clock.advance(by: 3600)
        #expect(try await Self.echo("still here", through: observer) == "still here\n", "the observer stays")
        await server.server.stop()
    }

    @Test func aFullHouseMakesRoomForANewClient() async throws {
        let server = try Server(idleTimeout: 600)
        var idle: [UnixSocket] = []
        for _ in 0..<ControlServer.maximumClients { idle.append(try UnixSocket.connected(to: server.path)) }
        // Each is accepted (the accept loop takes them in turn): ask one to be sure.
        try idle[ControlServer.maximumClients - 1].write(Array("ping\n".utf8))
        let late = try UnixSocket.connected(to: server.path)
        try late.write(Array("hello\n".utf8))
        let reply = await offPool { () -> [UInt8] in
            late.setReceiveTimeout(seconds: 30)  // a bound, not a speed check
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
            defer { buffer.deallocate() }
            guard case let .data(count) = late.readOrTimeout(into: buffer) else { return [] }
            return Array(buffer[0..<count])
        }
        #expect(reply == Array("hello\n".utf8), "the 257th client is served")
        #expect(await Self.closedWithin(idle[0], seconds: 30), "the longest idle one made room")
        await server.server.stop()
    }
}
