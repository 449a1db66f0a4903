import Foundation

/// Serves JSON lines on a listening Unix socket: a thread accepts, a thread
/// per client reads (both blocked in the kernel, so an idle daemon uses no
/// CPU), and each client's requests are answered in order by an async task.
public final class ControlServer: @unchecked Sendable {
    /// Answers one line with one reply line (events go through the connection).
    public typealias Handler = @Sendable (LineSplitter.Piece, ControlConnection) async -> [UInt8]

    /// Beyond this many clients at once, new ones are told so and closed.
    public static let maximumClients = 256
    /// Lines read ahead of the one being answered, per client.
    static let readAhead = 32

    private let listener: UnixSocket
    private let handler: Handler
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var connections: [ObjectIdentifier: ControlConnection] = [:]
    private var stopped = false

    public init(listener: UnixSocket, log: @escaping @Sendable (String) -> Void, handler: @escaping Handler) {
        self.listener = listener
        self.handler = handler
        self.log = log
    }

    public func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "mediaplay.accept"
        thread.start()
    }

    /// Stops accepting and ends every connection once the replies already
    /// under way are written (waiting a second at most).
    public func stop() async {
        let open = lock.withLock {
            stopped = true
            return Array(connections.values)
        }
        listener.shutdown()
        for connection in open { connection.socket.shutdownReading() }
        for _ in 0..<100 where !lock.withLock({ connections.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    private func acceptLoop() {
        while let socket = listener.accept() {
            // Only our own user may drive the player. The socket's mode keeps
            // others out already; this holds even if someone loosens it.
            guard let peer = socket.peerCredentials(), peer.uid == getuid() else {
                let who = socket.peerCredentials().map { "uid \($0.uid), pid \($0.pid)" } ?? "unknown peer"
                log("refused a client of another user (\(who))")
                try? socket.write(ControlJSON.line(ControlReply<EmptyResult>.failure(nil, ControlError(.forbidden, "this background player belongs to uid \(getuid())"))))
                socket.close()
                continue
            }
            let connection = ControlConnection(socket: socket)
            let accepted = lock.withLock {
                guard !stopped, connections.count < Self.maximumClients else { return false }
                connections[ObjectIdentifier(connection)] = connection
                return true
            }
            guard accepted else {
                try? socket.write(ControlJSON.line(ControlReply<EmptyResult>.failure(nil, ControlError(.shuttingDown, "too many clients, or shutting down; try again"))))
                socket.close()
                continue
            }
            let thread = Thread { [self] in serve(connection) }
            thread.name = "mediaplay.client"
            thread.start()
        }
    }

    /// Reads the client's lines and hands them, in order, to one task.
    private func serve(_ connection: ControlConnection) {
        let (pieces, continuation) = AsyncStream.makeStream(of: LineSplitter.Piece.self)
        let slots = DispatchSemaphore(value: Self.readAhead)
        let handler = self.handler
        let answered = Task {
            for await piece in pieces {
                connection.send(await handler(piece, connection))
                slots.signal()
            }
        }
        var splitter = LineSplitter(maximumLength: maximumRequestLength)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = connection.socket.read(into: buffer)
            if count == 0 { break }
            for piece in splitter.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                slots.wait()
                continuation.yield(piece)
            }
        }
        // A last line without its newline (a truncated request) is answered too.
        if let last = splitter.finish() { continuation.yield(last) }
        continuation.finish()
        Task {
            await answered.value
            connection.finish()
            _ = self.lock.withLock { self.connections.removeValue(forKey: ObjectIdentifier(connection)) }
        }
    }
}

/// One client: replies and events are written in order by a serial queue,
/// so a slow reader never holds up the daemon.
public final class ControlConnection: @unchecked Sendable {
    let socket: UnixSocket
    private let writer = DispatchQueue(label: "mediaplay.client.write")
    private let lock = NSLock()
    private var onFinish: [@Sendable () -> Void] = []

    init(socket: UnixSocket) {
        self.socket = socket
        // A client that stops reading for this long is dropped.
        socket.setSendTimeout(seconds: 5)
    }

    /// Queues a line (a reply or an event).
    public func send(_ line: [UInt8]) {
        writer.async { [socket] in
            do {
                try socket.write(line)
            } catch {
                socket.shutdown()
            }
        }
    }

    /// Runs `body` when the client goes (to end its event subscription).
    public func whenFinished(_ body: @escaping @Sendable () -> Void) {
        lock.withLock { onFinish.append(body) }
    }

    /// After the last queued line: ends the subscriptions and closes.
    func finish() {
        let bodies = lock.withLock {
            defer { onFinish.removeAll() }
            return onFinish
        }
        for body in bodies { body() }
        writer.async { [socket] in socket.close() }
    }
}
