import CLinux
import Foundation
import Glibc
import MediaFeed
import MediaModel
import MediaSession

/// The background player on MPD's protocol: a TCP listener (IPv4 and IPv6),
/// a thread per client blocked in the kernel while it has nothing to do
/// (idle costs no CPU), every command carried out through the session's
/// `PlayerCommand`s (`MPDCommands`), and `idle` fed by the session's events.
public final class MPDServer: @unchecked Sendable {
    public struct Options: Sendable {
        public var address: MPDAddress
        /// Without it every command works; with it only ping, password,
        /// close and commands until the client sends it.
        public var password: String?
        public var maximumClients: Int
        /// A client that reads none of its answers for this long is dropped
        /// (what waits for it is the kernel's socket buffer, no more).
        public var writeTimeout: Int
        /// A client silent this long outside `idle` is closed.
        public var readTimeout: Int

        public init(address: MPDAddress, password: String? = nil, maximumClients: Int = 100, writeTimeout: Int = 10, readTimeout: Int = 60) {
            self.address = address
            self.password = password
            self.maximumClients = maximumClients
            self.writeTimeout = writeTimeout
            self.readTimeout = readTimeout
        }
    }

    /// The kernel's send buffer for each client, in bytes.
    public static let sendBuffer = 256 * 1024

    /// The protocol version the greeting names (MPD 0.23's commands and answers).
    public static let protocolVersion = "0.23.5"

    public let options: Options
    /// The port listened on (the one the kernel chose for port 0).
    public let port: UInt16
    let commands: MPDCommands
    let hub = MPDIdleHub()
    private let clock: any MediaClock
    private let listeners: [Int32]
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var clients: [ObjectIdentifier: Int32] = [:]
    private var stopped = false
    private var watchers: [Task<Void, Never>] = []

    /// Binds the address (throws why not); `start` accepts.
    /// - details: the items' probed tags, one per item.
    /// - cover: the path of an item's picture, when it is a file here.
    /// - followFeed: takes the feed file's changes in before a command.
    public init(
        session: MediaSession, options: Options, clock: any MediaClock = SystemClock.shared,
        details: @escaping @Sendable ([FeedItem]) -> [MediaDetails?] = { $0.map { _ in nil } },
        cover: @escaping @Sendable (FeedItem) -> String? = { _ in nil },
        followFeed: @escaping @Sendable () -> Void = {},
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(MPDListenError) {
        self.options = options
        self.log = log
        self.clock = clock
        var listeners = try options.address.listen()
        // Port 0 on two families: the second must take the first's port.
        if options.address.port == 0 && listeners.count > 1 {
            for descriptor in listeners.dropFirst() { close(descriptor) }
            listeners = [listeners[0]]
        }
        self.listeners = listeners
        port = boundPort(listeners[0])
        commands = MPDCommands(session: session, clock: clock, details: details, cover: cover, followFeed: followFeed, localFiles: options.password != nil)
        let hub = self.hub
        commands.changed = { hub.post($0) }
    }

    public func start() {
        let commands = self.commands
        let hub = self.hub
        let events = commands.session.events()
        let settings = commands.session.settingsEvents()
        let eventWatcher = Task.detached {
            for await event in events {
                switch event.event {
                case .state, .metadata:
                    if event.status.state.isActive { commands.noteCurrent(event.status.id) }
                    hub.post(commands.queueChanged().union(.player))
                case .position, .progress, .subtitle: break
                }
            }
        }
        let settingsWatcher = Task.detached {
            var last = (commands.session.audioSettings, commands.session.playlistMode)
            for await event in settings {
                var changed: MPDSubsystems = []
                if event.audio.volume != last.0.volume || event.audio.muted != last.0.muted { changed.insert(.mixer) }
                if event.playlist != last.1 || event.audio.replayGain != last.0.replayGain { changed.insert(.options) }
                last = (event.audio, event.playlist)
                hub.post(changed)
            }
        }
        lock.withLock { watchers = [eventWatcher, settingsWatcher] }
        for descriptor in listeners {
            let thread = Thread { [self] in acceptLoop(descriptor) }
            thread.name = "mediaplay.mpd.accept"
            thread.start()
        }
    }

    /// Stops accepting and closes every client (their threads end on their own).
    public func stop() {
        lock.withLock {
            stopped = true
            for descriptor in clients.values { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        for watcher in lock.withLock({ watchers }) { watcher.cancel() }
        for descriptor in listeners { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Blocks the calling thread (never a task's) until `count` clients wait
    /// in `idle`, for tests and the benchmark; false when not within `seconds`.
    public func waitForIdleClients(_ count: Int, seconds: Double = 30) -> Bool {
        hub.waitForIdle(count, seconds: seconds, clock: clock)
    }

    /// Says something to the log.
    func note(_ message: String) { log(message) }

    /// How many clients are connected now.
    public var clientCount: Int { lock.withLock { clients.count } }

    private func acceptLoop(_ listener: Int32) {
        defer { close(listener) }
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                // Out of descriptors: the waiting client stays in the backlog
                // a moment rather than the loop spinning on it.
                if errno == EMFILE || errno == ENFILE { usleep(100_000) }
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { if lock.withLock({ stopped }) { return } else { continue } }
                return
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let token = MPDClientToken()
            let accepted: Bool = lock.withLock {
                guard !stopped, clients.count < options.maximumClients else { return false }
                clients[ObjectIdentifier(token)] = descriptor
                return true
            }
            guard accepted else {
                let line = Array("ACK [\(MPDErrorCode.system.rawValue)@0] {} too many clients (at most \(options.maximumClients)); try again later\n".utf8)
                _ = line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                close(descriptor)
                log("MPD: refused a client: \(options.maximumClients) are connected")
                continue
            }
            let thread = Thread { [self] in
                let connection = MPDConnection(descriptor: descriptor, server: self)
                connection.serve()
                // Closed under the lock: `stop` shuts only descriptors still ours.
                lock.withLock {
                    _ = clients.removeValue(forKey: ObjectIdentifier(token))
                    close(descriptor)
                }
            }
            thread.name = "mediaplay.mpd.client"
            // Reserved, not resident: a client's commands reach SQLite (the tags) on it.
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}

private final class MPDClientToken: Sendable {}

/// One client: reads its lines, answers them in order, waits in `idle`.
final class MPDConnection {
    let descriptor: Int32
    let server: MPDServer
    private var buffer: [UInt8] = []
    /// What one read takes in (kept: a round trip allocates none).
    private var chunk = [UInt8](repeating: 0, count: 16384)
    private var authorized: Bool
    /// A command list being gathered (nil: none), and whether it answers `list_OK`s.
    private var list: [[String]]?
    private var listOK = false
    /// The bytes of the lines gathered in `list` (MPD's max_command_list_size).
    private var listBytes = 0
    private var binaryLimit = 8192
    private let listener: MPDIdleHub.Listener

    init(descriptor: Int32, server: MPDServer) {
        self.descriptor = descriptor
        self.server = server
        authorized = server.options.password == nil
        listener = server.hub.add()
    }

    deinit { server.hub.remove(listener) }

    func serve() {
        var timeout = timeval(tv_sec: server.options.writeTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // A client that sends nothing for a minute outside `idle` is closed
        // (MPD's connection_timeout), so silent connections cannot hold every slot.
        var silence = timeval(tv_sec: server.options.readTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &silence, socklen_t(MemoryLayout<timeval>.size))
        // What waits for a client that does not read: this much in the
        // kernel (not the system's autotuned megabytes), then it is dropped.
        var buffer = Int32(MPDServer.sendBuffer)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        // Without its wake-up pipe (out of descriptors) `idle` would never end.
        guard listener.wake >= 0 else {
            var answer = MPDAnswer()
            answer.acknowledge(MPDError(.system, "out of file descriptors; try again later"), index: 0, command: "")
            _ = write(answer.bytes)
            server.note("MPD: refused a client: out of file descriptors")
            return
        }
        guard write(Array("OK MPD \(MPDServer.protocolVersion)\n".utf8)) else { return }
        while let line = nextLine() {
            guard handle(line) else { return }
        }
    }

    /// Writes all of `bytes`; false when the client is gone or reads nothing.
    private func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else {
                if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    server.note("MPD: dropped a client that read none of its answers for \(server.options.writeTimeout) s")
                }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Reads more into the buffer; false at the end of the stream.
    private func fill() -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    server.note("MPD: closed a client silent for \(server.options.readTimeout) s")
                }
                return false
            }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    /// The next whole line (nil: the client left, or sent a line too long).
    private func nextLine() -> [UInt8]? {
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                if line.last == 0x0D { line.removeLast() }
                guard line.count <= MPDRequest.maximumLineLength else { return tooLong() }
                return line
            }
            guard buffer.count <= MPDRequest.maximumLineLength else { return tooLong() }
            guard fill() else { return nil }
        }
    }

    private func tooLong() -> [UInt8]? {
        var answer = MPDAnswer()
        answer.acknowledge(MPDError(.argument, "line too long (at most \(MPDRequest.maximumLineLength) bytes)"), index: 0, command: "")
        _ = write(answer.bytes)
        return nil
    }

    /// Answers one line; false closes the connection.
    private func handle(_ line: [UInt8]) -> Bool {
        let words: [String]
        do {
            words = try MPDRequest.words(line)
        } catch {
            var answer = MPDAnswer()
            answer.acknowledge(MPDError(.argument, error.message), index: list?.count ?? 0, command: "")
            list = nil
            return write(answer.bytes)
        }
        if var gathered = list {
            if words.first == "command_list_end" {
                list = nil
                return write(run(gathered, listOK: listOK))
            }
            gathered.append(words)
            listBytes += line.count
            guard gathered.count <= MPDRequest.maximumListLength, listBytes <= MPDRequest.maximumListBytes else {
                var answer = MPDAnswer()
                answer.acknowledge(MPDError(.argument, "command list too long (at most \(MPDRequest.maximumListLength) commands, \(MPDRequest.maximumListBytes >> 20) MiB)"), index: 0, command: "command_list_begin")
                _ = write(answer.bytes)
                return false
            }
            list = gathered
            return true
        }
        guard let name = words.first else {
            var answer = MPDAnswer()
            answer.acknowledge(MPDError(.unknown, "No command given"), index: 0, command: "")
            return write(answer.bytes)
        }
        switch name {
        case "command_list_begin", "command_list_ok_begin":
            // Only ping, password, close and commands work before the
            // password: nothing worth a list, and a list is memory held.
            guard authorized else { return write(refusal(name)) }
            list = []
            listBytes = 0
            listOK = name == "command_list_ok_begin"
            return true
        case "close":
            return false
        case "noidle":
            // Not idle: nothing to end, nothing to answer.
            return true
        case "idle":
            guard permitted(name) else { return write(refusal(name)) }
            var wanted: MPDSubsystems = []
            for word in words.dropFirst() {
                guard let subsystem = MPDSubsystems.named(word) else {
                    var answer = MPDAnswer()
                    answer.acknowledge(MPDError(.argument, "Unrecognized idle event: \(word)"), index: 0, command: name)
                    return write(answer.bytes)
                }
                wanted.insert(subsystem)
            }
            return idle(wanted.isEmpty ? .all : wanted)
        default:
            return write(run([words], listOK: false))
        }
    }

    private func permitted(_ name: String) -> Bool {
        authorized || MPDCommands.withoutPassword.contains(name)
    }

    private func refusal(_ name: String) -> [UInt8] {
        var answer = MPDAnswer()
        answer.acknowledge(MPDError(.permission, "you don't have permission for \"\(name)\""), index: 0, command: name)
        return answer.bytes
    }

    /// A command, or a command list's commands in order: their answers, then
    /// `OK`, or the first refusal's `ACK` with its place in the list.
    private func run(_ commands: [[String]], listOK: Bool) -> [UInt8] {
        var answer = MPDAnswer()
        for (index, words) in commands.enumerated() {
            let name = words.first ?? ""
            do {
                guard MPDCommands.known.contains(name) || name == "idle" || name == "close" || name == "noidle" else {
                    throw MPDError(.unknown, "unknown command \"\(name)\"")
                }
                guard permitted(name) else { throw MPDError(.permission, "you don't have permission for \"\(name)\"") }
                if name == "idle" || name == "close" || name == "noidle" { throw MPDError(.argument, "\(name) is not allowed in a command list") }
                switch name {
                case "password":
                    guard words.count == 2 else { throw MPDError(.argument, "wrong number of arguments for \"password\"") }
                    guard words[1] == server.options.password else { throw MPDError(.password, "incorrect password") }
                    authorized = true
                case "commands":
                    for command in MPDCommands.names where permitted(command) { answer.add("command", command) }
                case "notcommands":
                    for command in MPDCommands.names where !permitted(command) { answer.add("command", command) }
                case "binarylimit":
                    guard words.count == 2, let limit = Int(words[1]), limit >= 64 else { throw MPDError(.argument, "binarylimit takes a number of bytes, at least 64") }
                    binaryLimit = min(limit, 1 << 20)
                default:
                    answer.append(try server.commands.perform(words, binaryLimit: binaryLimit))
                }
                if listOK { answer.listOK() }
            } catch let error as MPDError {
                // An unknown command's ACK names no command, as MPD's does.
                answer.acknowledge(error, index: index, command: error.code == .unknown ? "" : name)
                return answer.bytes
            } catch {
                answer.acknowledge(MPDError(.system, "\(error)"), index: index, command: name)
                return answer.bytes
            }
        }
        answer.ok()
        return answer.bytes
    }

    /// Waits for a change among `wanted`, or for `noidle`; false closes.
    private func idle(_ wanted: MPDSubsystems) -> Bool {
        server.hub.enterIdle()
        defer { server.hub.leaveIdle() }
        func answer(_ changed: MPDSubsystems) -> Bool {
            var answer = MPDAnswer()
            for (name, subsystem) in MPDSubsystems.names where changed.contains(subsystem) { answer.add("changed", name) }
            answer.ok()
            return write(answer.bytes)
        }
        while true {
            let changed = server.hub.take(wanted, for: listener)
            if !changed.isEmpty { return answer(changed) }
            if let end = buffer.firstIndex(of: 0x0A) {
                // Only noidle may come now; anything else ends the connection, as with MPD.
                let line = String(decoding: buffer[..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                buffer.removeSubrange(...end)
                guard line == "noidle" else { return false }
                return answer(server.hub.take(wanted, for: listener))
            }
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: listener.wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            if descriptors[0].revents != 0 {
                guard buffer.count <= MPDRequest.maximumLineLength, fill() else { return false }
            }
        }
    }
}
