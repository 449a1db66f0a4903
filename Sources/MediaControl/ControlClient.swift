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

    init(socket: UnixSocket) {
        self.socket = socket
    }

    /// Connects to a running daemon; nil when nobody listens there (no
    /// socket, or a stale one).
    /// Talks only to a daemon of this user: the runtime directory must be
    /// ours, private and not a link, and the process on the other end must
    /// run as us; anything else is refused before a byte is sent.
    public static func connect(_ paths: ControlPaths) throws(ControlClientError) -> ControlClient? {
        guard try trustedDirectory(paths.runtimeDirectory) else { return nil }
        let socket: UnixSocket
        do {
            socket = try UnixSocket.connected(to: paths.socket)
        } catch {
            switch error.code {
            case ENOENT, ECONNREFUSED: return nil
            default: throw .unreachable("cannot reach the background player at \(paths.socket): \(error)")
            }
        }
        guard let peer = socket.peerCredentials(), peer.uid == getuid() else {
            let who = socket.peerCredentials().map { "uid \($0.uid)" } ?? "an unknown user"
            throw .unreachable("refusing the background player at \(paths.socket): it runs as \(who), not as you (remove \(paths.runtimeDirectory), or pass --runtime-dir DIR)")
        }
        return ControlClient(socket: socket)
    }

    /// False when the directory does not exist (nobody runs); throws when it
    /// exists but could be another user's.
    static func trustedDirectory(_ path: String) throws(ControlClientError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw .unreachable("cannot look at the runtime directory \(path): \(String(cString: strerror(errno))) (pass --runtime-dir DIR)")
        }
        let problem: String?
        if info.st_mode & S_IFMT == S_IFLNK {
            problem = "it is a symbolic link"
        } else if info.st_mode & S_IFMT != S_IFDIR {
            problem = "it is not a directory"
        } else if info.st_uid != getuid() {
            problem = "it belongs to uid \(info.st_uid)"
        } else if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            // Ours but open to others: closed again (a socket someone else
            // planted in it is caught by the peer check).
            problem = "others can write or read it (mode \(String(info.st_mode & 0o777, radix: 8)))"
        } else {
            problem = nil
        }
        guard let problem else { return true }
        throw .unreachable("refusing the runtime directory \(path): \(problem) (remove it, or pass --runtime-dir DIR)")
    }

    /// Stops waiting for a reply after `seconds` (a busy daemon is normally
    /// quick to answer; callers that can do without it set this).
    public func setReplyTimeout(seconds: Double) {
        socket.setReceiveTimeout(seconds: seconds)
    }

    /// Sends `request` (numbered here) and returns its result, passing the
    /// events that arrive first to `onEvent`.
    public func call<Result: Decodable>(
        _ request: ControlRequest, as: Result.Type, onEvent: (ItemEvent) -> Void = { _ in }
    ) throws(ControlClientError) -> Result {
        var request = request
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
            let count = socket.read(into: buffer)
            if count == 0 {
                throw .unreachable("the background player closed the connection (did it quit? see 'mediaplay status')")
            }
            for piece in splitter.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                if case let .line(line) = piece { lines.append(line) }
            }
        }
        return lines.removeFirst()
    }
}
