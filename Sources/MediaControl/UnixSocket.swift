import Foundation

/// A failed socket call, with the operation and the system's reason.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32

    public init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// A stream socket in the Unix domain that closes its descriptor exactly once.
/// Blocking calls on it belong on dedicated threads, never on Swift's
/// cooperative pool.
public final class UnixSocket: @unchecked Sendable {
    public let descriptor: Int32
    private let closed = NSLock()
    private var isClosed = false
    /// A listening socket another process keeps too (systemd's, by socket
    /// activation): `shutdown` must not shut it (it would refuse clients for
    /// good), so a waiting `accept` is ended through this pipe instead.
    private let stopPipe: [Int32]
    /// Whether the socket was handed to this process (socket activation).
    public var isInherited: Bool { !stopPipe.isEmpty }

    init(descriptor: Int32, inherited: Bool = false) {
        self.descriptor = descriptor
        var ends: [Int32] = [-1, -1]
        if inherited && pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
            stopPipe = ends
        } else {
            stopPipe = []
        }
    }

    deinit {
        close()
        for end in stopPipe { Glibc.close(end) }
    }

    /// Binds and listens at `path` (which must not exist), readable and
    /// writable by the owner only.
    public static func listening(at path: String, backlog: Int32 = 128) throws(SocketError) -> UnixSocket {
        let socket = try make()
        var address = try socketAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw SocketError("bind \(path)") }
        // Owner only. Not by a umask around bind: the umask is the process's,
        // and a file another thread made meanwhile came out 0600 (a test saw
        // a runtime directory made so). The daemon's socket sits in a 0700
        // directory, so nobody else can reach it before this.
        guard chmod(path, 0o600) == 0 else { throw SocketError("chmod \(path)") }
        guard listen(socket.descriptor, backlog) == 0 else { throw SocketError("listen \(path)") }
        return socket
    }

    /// Binds and listens at `staging`, then renames it to `path`: the socket
    /// appears at `path` already listening, so a client woken by its
    /// appearance (inotify) is answered, never refused.
    public static func listening(at path: String, boundFirstAt staging: String, backlog: Int32 = 128) throws(SocketError) -> UnixSocket {
        // A path too long for clients to reach is refused as bind refuses it.
        _ = try socketAddress(path)
        let socket = try listening(at: staging, backlog: backlog)
        guard rename(staging, path) == 0 else {
            let error = SocketError("rename \(staging) to \(path)")
            unlink(staging)
            throw error
        }
        return socket
    }

    /// Connects to the socket at `path`.
    /// With `timeout`, a connection the daemon does not take from a full
    /// queue within it fails with EAGAIN instead of waiting on.
    public static func connected(to path: String, timeout: Double? = nil) throws(SocketError) -> UnixSocket {
        let socket = try make()
        if let timeout { socket.setSendTimeout(seconds: max(1, Int(timeout.rounded(.up)))) }
        var address = try socketAddress(path)
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if result == 0 { return socket }
            if errno != EINTR { throw SocketError("connect \(path)") }
        }
    }

    private static func make() throws(SocketError) -> UnixSocket {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError("socket") }
        return UnixSocket(descriptor: descriptor)
    }

    private static func socketAddress(_ path: String) throws(SocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw SocketError("socket path \(path) is longer than \(capacity - 1) bytes (use a shorter --runtime-dir)", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        return address
    }

    /// Waits for the next client; nil once the socket has been shut down.
    public func accept() -> UnixSocket? {
        while true {
            if let stop = stopPipe.first {
                var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
                if poll(&watched, 2, -1) < 0 {
                    if errno == EINTR { continue }
                    return nil
                }
                if watched[1].revents != 0 || watched[0].revents & Int16(POLLIN) == 0 { return nil }
            }
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 {
                // accept4(SOCK_CLOEXEC) is GNU-only; the daemon never execs, so this is not racy.
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return UnixSocket(descriptor: client)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            // Out of descriptors: leave the waiting client in the backlog a moment.
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: usleep(10_000)
            default: return nil
            }
        }
    }

    /// Reads what is available (up to the buffer's size); 0 at end of stream.
    /// What a read with a receive timeout found.
    public enum ReadOutcome: Equatable {
        case data(Int)
        /// End of stream, or the connection failed.
        case end
        /// Nothing came within the receive timeout.
        case timedOut
    }

    /// `read`, telling a timeout (`setReceiveTimeout`) from the end.
    public func readOrTimeout(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .data(count) }
            if count == 0 { return .end }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .end
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno != EINTR { return 0 }
        }
    }

    /// Writes every byte, or throws (a closed peer is an error, never SIGPIPE).
    public func write(_ bytes: some Collection<UInt8>) throws(SocketError) {
        // Closed already: the number may belong to another socket by now.
        guard closed.withLock({ !isClosed }) else { throw SocketError("send", code: EBADF) }
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let count = array.withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw SocketError("send")
            }
            offset += count
        }
    }

    /// The user and process at the other end.
    public func peerCredentials() -> (uid: uid_t, pid: pid_t)? {
        // struct ucred, which glibc declares only under _GNU_SOURCE.
        var credentials = (pid: pid_t(0), uid: uid_t(0), gid: gid_t(0))
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return (credentials.uid, credentials.pid)
    }

    /// Gives up on a peer that stops reading for this long.
    public func setSendTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Gives up waiting for the peer after this long (clients only).
    public func setReceiveTimeout(seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Ends both directions: a thread blocked in `accept` or `read` returns.
    public func shutdown() {
        closed.withLock {
            if let stop = stopPipe.last {
                var byte: UInt8 = 1
                _ = Glibc.write(stop, &byte, 1)
            } else if !isClosed {
                _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// Ends the writing side: the peer reads end of stream after our last byte.
    public func shutdownWriting() {
        closed.withLock {
            if !isClosed { _ = Glibc.shutdown(descriptor, Int32(SHUT_WR)) }
        }
    }

    /// Ends the reading side: a blocked `read` returns end of stream, while
    /// lines already queued can still be written.
    public func shutdownReading() {
        closed.withLock {
            if !isClosed { _ = Glibc.shutdown(descriptor, Int32(SHUT_RD)) }
        }
    }

    /// Closes the descriptor (once). Close from the thread that writes, so
    /// no write can reach a number the system has handed out again.
    public func close() {
        closed.withLock {
            if !isClosed { _ = Glibc.close(descriptor) }
            isClosed = true
        }
    }
}
