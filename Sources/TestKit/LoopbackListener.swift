import Dispatch
import Foundation
import Glibc

/// How a connection's thread leaves its socket.
enum ConnectionEnd {
    /// An ordinary close (FIN).
    case close
    /// A reset (RST): SO_LINGER 0, then close.
    case reset
}

/// A listening socket on 127.0.0.1 with an accept thread and a thread per
/// connection, each blocking in its own socket calls: a test server has a
/// handful of connections, and blocking code says plainly what happens when.
/// `stop()` closes the door, wakes every thread and waits for them to end.
final class LoopbackListener: Sendable {
    let port: Int
    private let listening: Int32
    private let stopSignal: WakePipe
    /// The sockets of connections being served. A thread closes its socket
    /// only after taking it out of here, so `stop()` never shuts down a
    /// descriptor number already reused for something else.
    private let open = LockedValue(OpenConnections())
    /// The accept thread and every connection thread, until they end.
    private let running = DispatchGroup()

    private struct OpenConnections: Sendable {
        var stopping = false
        var sockets: Set<Int32> = []
    }

    /// Listens on an ephemeral port and serves each connection on a thread
    /// of its own with `serve`, which returns once the connection is over.
    init(serve: @escaping @Sendable (ConnectionSocket) -> ConnectionEnd) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError("socket") }
        do {
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
                }
            }
            guard bound else { throw SocketError("bind 127.0.0.1") }
            guard listen(descriptor, 128) == 0 else { throw SocketError("listen") }
            port = Int(UInt16(bigEndian: address.sin_port))
            stopSignal = try WakePipe()
        } catch {
            _ = close(descriptor)
            throw error
        }
        listening = descriptor
        running.enter()
        Thread { [self] in
            acceptConnections(serve: serve)
            running.leave()
        }.start()
    }

    /// Stops listening and ends every connection (blocked sends and waits
    /// included), then returns once every thread has ended. Idempotent.
    func stop() {
        guard beginStopping() else { return }
        finishStopping()
    }

    /// The same, the port refusing connections at once, but the threads'
    /// ends waited for on a thread of its own: a server let go in a test
    /// runs this on Swift's cooperative pool, which must never block (two
    /// such waits there once held both of its threads, and every other
    /// test's tasks waited behind them for half a minute).
    func stopWithoutWaiting() {
        guard beginStopping() else { return }
        Thread { [self] in finishStopping() }.start()
    }

    /// Whether this call is the first to stop.
    private func beginStopping() -> Bool {
        let first = open.withLock { state in
            defer { state.stopping = true }
            // A shut-down socket wakes its thread's recv, send or poll at once.
            for socket in state.sockets { _ = shutdown(socket, Int32(SHUT_RDWR)) }
            return !state.stopping
        }
        guard first else { return false }
        // No new connection from here on (Linux refuses them on a listening
        // socket shut down), and the accept thread wakes.
        _ = shutdown(listening, Int32(SHUT_RDWR))
        stopSignal.wake()
        return true
    }

    private func finishStopping() {
        running.wait()
        _ = close(listening)
        stopSignal.close()
    }

    private func acceptConnections(serve: @escaping @Sendable (ConnectionSocket) -> ConnectionEnd) {
        var descriptors = [
            pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopSignal.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            // Sleeps until a client connects or stop() signals: no timer.
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || descriptors[1].revents != 0 { return }
            let descriptor = accept(listening, nil, nil)
            guard descriptor >= 0 else {
                // Out of descriptors, say: pause rather than spin on poll.
                if errno != EINTR && errno != ECONNABORTED && errno != EAGAIN { _ = poll(&descriptors[1], 1, 100) }
                continue
            }
            closeOnExec(descriptor)
            var one: Int32 = 1
            // Small responses (a head, a throttled slice) go out at once.
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let admitted = open.withLock { state in
                guard !state.stopping else { return false }
                state.sockets.insert(descriptor)
                return true
            }
            guard admitted else {
                _ = close(descriptor)
                return
            }
            let connection = ConnectionSocket(descriptor: descriptor)
            running.enter()
            Thread { [self] in
                let end = serve(connection)
                if case .reset = end { connection.lingerZero() }
                open.withLock { _ = $0.sockets.remove(descriptor) }
                _ = close(descriptor)
                running.leave()
            }.start()
        }
    }
}
