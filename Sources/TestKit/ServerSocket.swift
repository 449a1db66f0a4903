import Glibc

/// A system call of the loopback server that failed, with its errno.
struct SocketError: Error, CustomStringConvertible {
    var call: String
    var code: Int32

    init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// Linux's POLLRDHUP: the peer closed (or half-closed) its side. Glibc shows
/// the name only under _GNU_SOURCE; the value is the kernel's ABI.
private let pollPeerClosed: Int16 = 0x2000

/// Marks a descriptor close-on-exec: the tests start programs, which must
/// not keep the server's sockets open (Glibc here has neither accept4 nor
/// pipe2, so it is set after creation).
func closeOnExec(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
}

/// One accepted connection's socket, used only by the thread that serves
/// it (other threads only shut it down, through `LoopbackListener`).
struct ConnectionSocket: Sendable {
    let descriptor: Int32

    /// Sends every byte, blocking while the peer's window is full; false once
    /// the peer is gone. MSG_NOSIGNAL: a gone peer is EPIPE, not SIGPIPE.
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send($0) }
    }

    /// Appends what the peer sent next (blocking until something comes);
    /// false at its end of stream or on an error.
    func receive(appendingTo buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    enum WaitOutcome {
        case timedOut
        /// The peer closed or reset, or the server is stopping (it shuts
        /// the socket down, which wakes every wait on it).
        case peerGone
        /// `signal` became readable.
        case signalled
    }

    /// Sleeps up to `milliseconds` (-1: until something happens) without
    /// reading the socket: a request the client sends meanwhile waits its
    /// turn, read once the response in progress has ended.
    func wait(milliseconds: Int32, signal: Int32? = nil) -> WaitOutcome {
        var descriptors = [pollfd(fd: descriptor, events: pollPeerClosed, revents: 0)]
        if let signal { descriptors.append(pollfd(fd: signal, events: Int16(POLLIN), revents: 0)) }
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0, errno == EINTR { continue }
            if ready < 0 || descriptors[0].revents != 0 { return .peerGone }
            if ready == 0 { return .timedOut }
            return .signalled
        }
    }

    /// SO_LINGER 0: the close sends RST, as a crashed server or a dropped
    /// link would. (The close itself is `LoopbackListener`'s.)
    func lingerZero() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }
}

/// A pipe that wakes a thread polling its read end: the accept thread at
/// stop, a held response at release or goAway.
struct WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(SocketError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SocketError("pipe") }
        readEnd = ends[0]
        writeEnd = ends[1]
        closeOnExec(readEnd)
        closeOnExec(writeEnd)
    }

    /// Makes the read end readable (for good: nobody drains it).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
