import Foundation
import MediaModel

/// Why a client got no answer it could use.
public enum ControlClientError: Error, CustomStringConvertible, Sendable {
    /// Nobody answers at the socket (and starting a daemon did not help).
    case unreachable(String)
    /// The daemon answered with an error.
    case refused(CommandError)
    /// The daemon's answer made no sense.
    case protocolError(String)

    public var description: String {
        switch self {
        case let .unreachable(message), let .protocolError(message): return message
        case let .refused(error): return error.message
        }
    }
}

/// A connection to the background player: blocking calls, for short-lived
/// command-line clients (one request, its reply, maybe some events).
public final class ControlClient: @unchecked Sendable {
    private let socket: UnixSocket
    private var splitter = LineSplitter(maximumLength: 64 << 20)
    private var lines: [[UInt8]] = []
    private var nextID = 1

    /// Seconds of silence after which the daemon "does not answer".
    private var timeout: Double

    init(socket: UnixSocket, timeout: Double) {
        self.socket = socket
        self.timeout = timeout
    }

    /// Connects to a running daemon; nil when nobody listens there (no
    /// socket, or a stale one).
    /// Talks only to a daemon of this user: the runtime directory must be
    /// ours, private and not a link, and the process on the other end must
    /// run as us; anything else is refused before a byte is sent.
    public static func connect(_ paths: ControlPaths) throws(ControlClientError) -> ControlClient? {
        guard try trustedDirectory(paths.runtimeDirectory) else { return nil }
        let socket: UnixSocket
        let timeout = ClientTimeout.seconds()
        do {
            socket = try UnixSocket.connected(to: paths.socket, timeout: timeout)
        } catch {
            switch error.code {
            case ENOENT, ECONNREFUSED: return nil
            case EAGAIN, EWOULDBLOCK, ETIMEDOUT:
                // The listen queue is full: a daemon that stopped accepting.
                throw .unreachable("the background player does not answer\(Self.holder(paths).map { " (pid \($0))" } ?? "") (stop it with 'kill', then try again)")
            default: throw .unreachable("cannot reach the background player at \(paths.socket): \(error)")
            }
        }
        guard let peer = socket.peerCredentials(), peer.uid == getuid() else {
            let who = socket.peerCredentials().map { "uid \($0.uid)" } ?? "an unknown user"
            throw .unreachable("refusing the background player at \(paths.socket): it runs as \(who), not as you (remove \(paths.runtimeDirectory), or pass --runtime-dir DIR)")
        }
        let client = ControlClient(socket: socket, timeout: timeout)
        socket.setReceiveTimeout(seconds: timeout)
        socket.setSendTimeout(seconds: Int(timeout.rounded(.up)))
        return client
    }

    /// The background player's process: the other end of this connection.
    public var daemonPID: pid_t? { socket.peerCredentials()?.pid }

    /// Waits (up to `seconds`) until the process `pid` has ended: after
    /// `quit`, until no background player is left.
    public static func waitForExit(of pid: pid_t, seconds: Double) {
        // No pidfd: it has ended already, or the kernel predates them.
        _ = ProcessEnd(pid)?.wait(seconds: seconds)
    }

    /// The pid written in the daemon's lock file, if any.
    static func holder(_ paths: ControlPaths) -> Int32? {
        guard let text = try? String(contentsOfFile: paths.lock, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// False when the directory does not exist (nobody runs); throws when it
    /// exists but could be another user's.
    static func trustedDirectory(_ path: String) throws(ControlClientError) -> Bool {
        // Checked as it is, never changed: a folder open to others is
        // refused, not closed (it may be a shared one that a link or a
        // setting pointed at).
        if let problem = OwnFolder.problem(path, privateOnly: true) {
            throw .unreachable("refusing the runtime directory \(path): \(problem) (remove it, or pass --runtime-dir DIR)")
        }
        return access(path, F_OK) == 0
    }

    /// Stops waiting for a reply after `seconds` (a busy daemon is normally
    /// quick to answer; callers that can do without it set this).
    public func setReplyTimeout(seconds: Double) {
        timeout = seconds
        socket.setReceiveTimeout(seconds: seconds)
    }

    /// A request made to expire when this client stops waiting for it.
    public func expiring(_ request: ControlRequest) -> ControlRequest {
        var request = request
        if request.expires == nil { request.expires = ClientTimeout.expiry(after: timeout) }
        return request
    }

    /// Sends `request` (numbered here) and returns its result, passing the
    /// events that arrive first to `onEvent`.
    public func call<Result: Decodable>(
        _ request: ControlRequest, as: Result.Type, onEvent: (ItemEvent) -> Void = { _ in }
    ) throws(ControlClientError) -> Result {
        var request = expiring(request)
        request.id = nextID
        nextID += 1
        do {
            try socket.write(ControlJSON.line(request))
        } catch {
            throw .unreachable("the background player hung up (\(error))")
        }
        while true {
            let line = try nextLine()
            let data = Data(line)
            if let event = try? JSONDecoder().decode(ItemEvent.self, from: data) {
                onEvent(event)
                continue
            }
            guard let header = try? JSONDecoder().decode(ReplyHeader.self, from: data) else {
                throw .protocolError("the background player sent something that is not a reply: \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            // A reply without an id is for the connection (refused, too many clients).
            if header.id != nil && header.id != request.id { continue }
            if let error = header.error { throw .refused(error) }
            do {
                guard let result = try JSONDecoder().decode(ResultOnly<Result>.self, from: data).result else {
                    throw ControlClientError.protocolError("the background player's reply has no result")
                }
                return result
            } catch let error as ControlClientError {
                throw error
            } catch {
                throw .protocolError("the background player's reply is not what this client understands (\(error)); is it another version?")
            }
        }
    }

    /// Waits for the next event (after an `observe` call).
    public func nextEvent() throws(ControlClientError) -> ItemEvent {
        // Events come when something happens: a paused player may say
        // nothing for hours, and that is no silence to give up on.
        socket.setReceiveTimeout(seconds: 0)
        while true {
            let line = try nextLine()
            if let event = try? JSONDecoder().decode(ItemEvent.self, from: Data(line)) { return event }
        }
    }

    private struct ReplyHeader: Decodable {
        var id: Int?
        var ok: Bool
        var error: CommandError?
    }

    private struct ResultOnly<Result: Decodable>: Decodable {
        var result: Result?
    }

    /// Sends one request line as it is (a client that writes its own JSON).
    public func send(line: [UInt8]) throws(ControlClientError) {
        do {
            try socket.write(line)
        } catch {
            throw .unreachable("the background player hung up (\(error))")
        }
    }

    /// The next line the daemon sent (a reply or an event), newline removed.
    public func nextLine() throws(ControlClientError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        while lines.isEmpty {
            let count: Int
            switch socket.readOrTimeout(into: buffer) {
            case let .data(read): count = read
            case .end: throw .unreachable("the background player closed the connection (did it quit? see 'mediaplay status')")
            case .timedOut:
                let pid = socket.peerCredentials().map { " (pid \($0.pid))" } ?? ""
                throw .unreachable("the background player does not answer\(pid) (nothing for \(SecondsText.text(timeout)); if it stays so, stop it with 'kill')")
            }
            for piece in splitter.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                if case let .line(line) = piece { lines.append(line) }
            }
        }
        return lines.removeFirst()
    }
}

/// "10 s", "1.5 s": a timeout as the user reads it.
enum SecondsText {
    static func text(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
