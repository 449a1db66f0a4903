import CLinux
import Foundation
import Glibc

/// A client of the background player's socket that sends `observe` and
/// reads what the player then says (docs/PROTOCOL.md): the current item's
/// status in the reply, then every event (some may come before the reply). A test waits here for the player
/// to reach a state ("playing", past 1 s) instead of sleeping or asking
/// `status` again and again. Written with JSONSerialization, as any client
/// could: the test kit knows nothing of the player's own types.
///
/// Statuses are JSON objects: an item's status (`state`, `position`,
/// `subtitle`, `notice`, ...) and, for an event, its kind in `event`.
public final class PlayerObserver {
    private let connection: Connection
    private var lines: AsyncStream<Data>.Iterator
    /// The reply to `observe`: the daemon's status.
    public let reply: [String: Any]
    /// Given out by `next` before anything read later: events that came
    /// before the reply, then the reply's current item.
    private var queued: [[String: Any]]
    /// The last status `next` gave out (what a failed wait saw last).
    public private(set) var last: [String: Any]?

    /// Connects to the socket at `socket` (waiting for it to appear) and
    /// observes. `timeout` bounds the whole observation, the waits through
    /// it included: a bound for failures, not a pace.
    public init(socket: String, timeout: Double = 30) async throws {
        guard try await Wait.forFile(socket, timeout: timeout) else {
            throw Wait.Failure(message: "no background player's socket at \(socket) within \(timeout) s")
        }
        let connection = try await offPool { () throws(Wait.Failure) -> Connection in try Connection(socket: socket, timeout: timeout) }
        var lines = connection.lines.makeAsyncIterator()
        // The player forwards events from the moment it takes the request,
        // so some may come before its reply: kept, in order.
        var early: [[String: Any]] = []
        var result: [String: Any]?
        var unread: String?
        while result == nil, let line = await lines.next() {
            guard let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else {
                unread = String(decoding: line, as: UTF8.self)
                break
            }
            if object["ok"] == nil {
                early.append(object)
            } else if object["ok"] as? Bool == true, let status = object["result"] as? [String: Any] {
                result = status
            } else {
                unread = String(decoding: line, as: UTF8.self)
                break
            }
        }
        guard let result else {
            connection.stop()
            throw Wait.Failure(message: "the background player at \(socket) did not take observe: \(unread ?? "no reply")")
        }
        self.connection = connection
        self.lines = lines
        reply = result
        queued = early + [result["current"] as? [String: Any]].compactMap { $0 }
    }

    /// The next status: events that came before the reply and the reply's
    /// current item (when one is active) first, then each event's; nil once
    /// the connection ends or the timeout has passed.
    public func next() async -> [String: Any]? {
        if !queued.isEmpty {
            let status = queued.removeFirst()
            last = status
            return status
        }
        while let line = await lines.next() {
            guard let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else { continue }
            last = object
            return object
        }
        return nil
    }

    /// Reads statuses until one satisfies `predicate` and returns it; nil
    /// when the connection ends or the timeout passes first (`last` holds
    /// what was seen last). The predicate may keep state of its own: it
    /// sees every status once, in order.
    public func waitFor(_ predicate: ([String: Any]) throws -> Bool) async rethrows -> [String: Any]? {
        while let status = await next() {
            if try predicate(status) { return status }
        }
        return nil
    }

    /// An item status's state ("playing", "paused", "ended", ...).
    public static func state(_ status: [String: Any]) -> String? { status["state"] as? String }

    /// An item status's position in seconds (0 when it has none).
    public static func position(_ status: [String: Any]) -> Double { (status["position"] as? NSNumber)?.doubleValue ?? 0 }

    /// Whether `status` is an item playing at `seconds` or past it.
    public static func isPlaying(_ status: [String: Any], past seconds: Double) -> Bool {
        state(status) == "playing" && position(status) >= seconds
    }

    /// The socket, a thread that reads its lines until it closes, the
    /// deadline passes or the observer is gone.
    final class Connection: @unchecked Sendable {
        let lines: AsyncStream<Data>
        private let descriptor: Int32
        private let deadline: Int32
        private let stopRead: Int32
        private let stopWrite: Int32

        init(socket path: String, timeout: Double) throws(Wait.Failure) {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw Wait.failure("cannot make a socket") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            guard bytes.count < capacity else {
                close(descriptor)
                throw Wait.Failure(message: "socket path too long: \(path)")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            var result: Int32
            repeat {
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            } while result != 0 && errno == EINTR
            guard result == 0 else {
                let failure = Wait.failure("cannot connect to \(path)")
                close(descriptor)
                throw failure
            }
            let request = Array(#"{"id": 1, "cmd": "observe"}"#.utf8) + [0x0A]
            let sent = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let deadline = mp_deadline_descriptor(timeout)
            var ends: [Int32] = [-1, -1]
            guard sent == request.count, deadline >= 0, pipe(&ends) == 0 else {
                let failure = Wait.failure("cannot observe the background player at \(path)")
                close(descriptor)
                if deadline >= 0 { close(deadline) }
                throw failure
            }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            self.descriptor = descriptor
            self.deadline = deadline
            stopRead = ends[0]
            stopWrite = ends[1]
            let (lines, continuation) = AsyncStream.makeStream(of: Data.self)
            self.lines = lines
            let thread = Thread { [self] in
                read(into: continuation)
                continuation.finish()
            }
            thread.name = "testkit.player-observer"
            thread.start()
        }

        deinit {
            for descriptor in [descriptor, deadline, stopRead, stopWrite] { close(descriptor) }
        }

        func stop() {
            var byte: UInt8 = 1
            _ = write(stopWrite, &byte, 1)
        }

        /// Reads lines until the socket closes, the deadline passes or a stop.
        private func read(into continuation: AsyncStream<Data>.Continuation) {
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            var watched = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: deadline, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                for index in watched.indices { watched[index].revents = 0 }
                if poll(&watched, nfds_t(watched.count), -1) < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if watched[1].revents != 0 || watched[2].revents != 0 { return }
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                pending.append(contentsOf: buffer[..<count])
                while let newline = pending.firstIndex(of: 0x0A) {
                    continuation.yield(Data(pending[pending.startIndex..<newline]))
                    pending = Data(pending[(newline + 1)...])
                }
            }
        }
    }

    deinit { connection.stop() }
}

extension UserHome {
    /// An observer of this home's background player (see `PlayerObserver`).
    public func observePlayer(timeout: Double = 30) async throws -> PlayerObserver {
        try await PlayerObserver(socket: socket, timeout: timeout)
    }

    /// Waits for this home's background player to report an item status
    /// that satisfies `predicate` (the current item's, then each event's);
    /// nil when none did within `timeout` (a bound for failures).
    public func waitForPlayer(timeout: Double = 30, _ predicate: ([String: Any]) throws -> Bool) async throws -> [String: Any]? {
        try await observePlayer(timeout: timeout).waitFor(predicate)
    }
}
