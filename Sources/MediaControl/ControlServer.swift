import Foundation
import MediaModel
import Synchronization

/// The reply to one request line: made at once, or by async work that the
/// server runs as a task while the client's thread waits for it.
public enum ControlAnswer: Sendable {
    case now([UInt8])
    case later(@Sendable () async -> [UInt8])
}

/// Serves JSON lines on a listening Unix socket: a thread accepts, and a
/// thread per client reads its requests and answers them in order (all
/// blocked in the kernel when idle, so an idle daemon uses no CPU). A request
/// that needs no waiting is answered on that thread, with no task or queue
/// hop; the others by an async task while the client's thread waits. Idle
/// clients are closed by an alarm on the server's clock.
public final class ControlServer: @unchecked Sendable {
    /// Answers one line, on the client's thread (events go through the connection).
    public typealias Handler = @Sendable (LineSplitter.Piece, ControlConnection) -> ControlAnswer

    /// At this many clients, a new one takes the place of the longest idle
    /// one that is not observing; only when all observe is it turned away.
    public static let maximumClients = 256
    /// A client that sends nothing for this long is closed, unless it
    /// observes (its events are what it waits for).
    let idleTimeout: Double
    /// What idle times and the wait for the last replies are measured on.
    let clock: any MediaClock

    private let listener: UnixSocket
    private let handler: Handler
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var connections: [ObjectIdentifier: ControlConnection] = [:]
    private var stopped = false
    /// `stop` waiting for the connections to end (resumed when none is left).
    private var drained: [@Sendable () -> Void] = []

    public init(
        listener: UnixSocket, idleTimeout: Double = 60, clock: any MediaClock = SystemClock.shared,
        log: @escaping @Sendable (String) -> Void, handler: @escaping Handler
    ) {
        self.idleTimeout = idleTimeout
        self.clock = clock
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
        // Whichever comes first: the last connection's end, or the second.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume = ResumeOnce(continuation)
            // Real time: a test's stopped clock must not hold a shutdown.
            let real = SystemClock.shared
            let patience = real.alarm(at: real.now + 1) { resume() }
            let waiting = lock.withLock { () -> Bool in
                guard !connections.isEmpty else { return false }
                drained.append {
                    patience.cancel()
                    resume()
                }
                return true
            }
            if !waiting {
                patience.cancel()
                resume()
            }
        }
    }

    private func acceptLoop() {
        while let socket = listener.accept() {
            // Only our own user may drive the player. The socket's mode keeps
            // others out already; this holds even if someone loosens it.
            guard let peer = socket.peerCredentials(), peer.uid == getuid() else {
                let who = socket.peerCredentials().map { "uid \($0.uid), pid \($0.pid)" } ?? "unknown peer"
                log("refused a client of another user (\(who))")
                try? socket.write(ControlJSON.line(ControlReply<EmptyResult>.failure(nil, CommandError(.forbidden, "this background player belongs to uid \(getuid())"))))
                socket.close()
                continue
            }
            let connection = ControlConnection(socket: socket, clock: clock)
            let (accepted, evicted): (Bool, ControlConnection?) = lock.withLock {
                guard !stopped else { return (false, nil) }
                var evicted: ControlConnection?
                if connections.count >= Self.maximumClients {
                    // Full: the longest idle client that is not observing goes.
                    evicted = connections.values.filter { !$0.isObserving }.min { $0.lastRequest < $1.lastRequest }
                    guard let evicted else { return (false, nil) }
                    connections.removeValue(forKey: ObjectIdentifier(evicted))
                }
                connections[ObjectIdentifier(connection)] = connection
                return (true, evicted)
            }
            if let evicted {
                log("closed the longest idle client to make room")
                evicted.socket.shutdownReading()
            }
            guard accepted else {
                try? socket.write(ControlJSON.line(ControlReply<EmptyResult>.failure(nil, CommandError(.shuttingDown, "too many clients, or shutting down; try again"))))
                socket.close()
                continue
            }
            let thread = Thread { [self] in serve(connection) }
            thread.name = "mediaplay.client"
            thread.start()
        }
    }

    /// Reads the client's lines and answers each before reading on. The
    /// read blocks with no timeout: the connection's idle alarm shuts it.
    private func serve(_ connection: ControlConnection) {
        var splitter = LineSplitter(maximumLength: maximumRequestLength)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        connection.watchIdle(timeout: idleTimeout)
        reading: while true {
            switch connection.socket.readOrTimeout(into: buffer) {
            case let .data(count):
                connection.touch()
                for piece in splitter.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                    answer(piece, connection)
                }
            case .end, .timedOut:
                break reading
            }
        }
        if connection.closedForIdling { log("closed a client idle for \(Int(idleTimeout)) s") }
        // A last line without its newline (a truncated request) is answered too.
        if let last = splitter.finish() { answer(last, connection) }
        connection.finish()
        let waiting = lock.withLock { () -> [@Sendable () -> Void] in
            connections.removeValue(forKey: ObjectIdentifier(connection))
            guard connections.isEmpty else { return [] }
            defer { drained.removeAll() }
            return drained
        }
        for resume in waiting { resume() }
    }

    /// One reply, written from this thread after the events already queued.
    /// The client's silence counts from its reply: from before it is
    /// written, so a client that has read it finds the count started.
    private func answer(_ piece: LineSplitter.Piece, _ connection: ControlConnection) {
        connection.beginAnswer()
        let reply: [UInt8]
        switch handler(piece, connection) {
        case let .now(line): reply = line
        case let .later(work): reply = Self.wait(for: work)
        }
        connection.touch()
        connection.reply(reply)
        connection.endAnswer()
    }

    /// Runs `work` as a task and waits for its reply. The thread waiting is
    /// the client's own, never one of the cooperative pool's.
    private static func wait(for work: @escaping @Sendable () async -> [UInt8]) -> [UInt8] {
        final class Reply: @unchecked Sendable {
            // Written by the task before `done` is signalled, read after.
            var line: [UInt8] = []
        }
        let reply = Reply()
        let done = DispatchSemaphore(value: 0)
        Task {
            reply.line = await work()
            done.signal()
        }
        done.wait()
        return reply.line
    }
}

/// One client: replies and events are written in order by a serial queue,
/// so a slow reader never holds up the daemon.
public final class ControlConnection: @unchecked Sendable {
    let socket: UnixSocket
    private let writer = DispatchQueue(label: "mediaplay.client.write")
    private let clock: any MediaClock
    private let lock = NSLock()
    private var onFinish: [@Sendable () -> Void] = []
    /// What waits for this answer's reply to be written (an observer's events).
    private var afterReply: [@Sendable () -> Void] = []
    private var observing = false
    private var lastRead: Double
    // The idle watch (see `watchIdle`).
    private var idleTimeout = Double.infinity
    private var idleAlarm: ClockAlarm?
    private var answering = false
    private var idled = false
    private var finished = false
    /// Bytes queued for the client and not yet written. Past
    /// `maximumQueuedBytes` (an observer reading slower than events come)
    /// the client is dropped: its backlog would grow the daemon without end.
    private var queuedBytes = 0
    private var dropped = false
    static let maximumQueuedBytes = 1 << 20

    /// Whether the client subscribed to events (it may then stay silent).
    var isObserving: Bool { lock.withLock { observing } }
    /// When the client last sent something.
    var lastRequest: Double { lock.withLock { lastRead } }

    /// The client spoke, or was answered: its silence counts from now.
    func touch() {
        let now = clock.now
        lock.withLock { lastRead = now }
    }

    /// The client observes: its silence is waiting for events, not idling.
    public func markObserving() {
        lock.withLock { observing = true }
    }

    init(socket: UnixSocket, clock: any MediaClock) {
        self.socket = socket
        self.clock = clock
        lastRead = clock.now
        // A client that stops reading for this long is dropped.
        socket.setSendTimeout(seconds: 5)
    }

    /// Closes the client (its reading side: its thread then ends it) once it
    /// has been silent for `timeout` while nothing was being answered,
    /// unless it observes. One alarm at a time, set again when it finds the
    /// client spoke since: an idle daemon sets none, a busy client few.
    func watchIdle(timeout: Double) {
        let due = lock.withLock { () -> Double in
            idleTimeout = timeout
            return lastRead + timeout
        }
        setIdleAlarm(at: due)
    }

    /// Whether the idle watch closed the client.
    var closedForIdling: Bool { lock.withLock { idled } }

    private func setIdleAlarm(at due: Double) {
        let alarm = clock.alarm(at: due) { [weak self] in self?.idleAlarmRang() }
        // One at a time: the reader's thread and a rung alarm may both set one.
        let spare = lock.withLock { () -> Bool in
            guard !finished, idleAlarm == nil else { return true }
            idleAlarm = alarm
            return false
        }
        if spare { alarm.cancel() }
    }

    private func idleAlarmRang() {
        enum Next { case none, close, again(Double) }
        let now = clock.now
        let next = lock.withLock { () -> Next in
            idleAlarm = nil
            // Waiting for events is not idling; a long answer is not either
            // (its end sets the alarm again).
            if finished || observing || answering { return .none }
            if now < lastRead + idleTimeout { return .again(lastRead + idleTimeout) }
            idled = true
            return .close
        }
        switch next {
        case .none: break
        case .close: socket.shutdownReading()
        case let .again(due): setIdleAlarm(at: due)
        }
    }

    /// A request is being answered: no idle close meanwhile.
    func beginAnswer() {
        lock.withLock { answering = true }
    }

    /// The answer is written: an alarm that rang meanwhile is set again.
    func endAnswer() {
        let (due, waiting) = lock.withLock { () -> (Double?, [@Sendable () -> Void]) in
            answering = false
            defer { afterReply.removeAll() }
            return (idleAlarm == nil && !finished && !observing && idleTimeout.isFinite ? lastRead + idleTimeout : nil, afterReply)
        }
        if let due { setIdleAlarm(at: due) }
        for body in waiting { body() }
    }

    /// Runs `body` once the reply to the request being answered is written:
    /// an observer's events start after its status (docs/PROTOCOL.md).
    public func whenReplied(_ body: @escaping @Sendable () -> Void) {
        lock.withLock { afterReply.append(body) }
    }

    /// Writes a reply on the calling thread, after the lines already queued
    /// (the queue runs the block here when nothing is waiting in it).
    func reply(_ line: [UInt8]) {
        writer.sync { write(line) }
    }

    /// Queues a line (an event, or a reply made elsewhere); drops the client
    /// instead when too much waits for it already.
    public func send(_ line: [UInt8]) {
        let accepted = lock.withLock { () -> Bool in
            guard !dropped else { return false }
            guard queuedBytes + line.count <= Self.maximumQueuedBytes else {
                dropped = true
                return false
            }
            queuedBytes += line.count
            return true
        }
        guard accepted else {
            // Both ways: its reader thread ends and finishes the connection.
            socket.shutdown()
            return
        }
        writer.async { [self] in
            write(line)
            lock.withLock { queuedBytes -= line.count }
        }
    }

    /// Whether the client was dropped for reading too slowly.
    var wasDropped: Bool { lock.withLock { dropped } }

    private func write(_ line: [UInt8]) {
        do {
            try socket.write(line)
        } catch {
            socket.shutdown()
        }
    }

    /// Runs `body` when the client goes (to end its event subscription).
    public func whenFinished(_ body: @escaping @Sendable () -> Void) {
        let already = lock.withLock { () -> Bool in
            if !finished { onFinish.append(body) }
            return finished
        }
        // Gone already: ended at once.
        if already { body() }
    }

    /// After the last queued line: ends the subscriptions and closes.
    func finish() {
        let (bodies, alarm) = lock.withLock {
            finished = true
            defer {
                onFinish.removeAll()
                idleAlarm = nil
            }
            return (onFinish, idleAlarm)
        }
        alarm?.cancel()
        for body in bodies { body() }
        writer.async { [socket] in socket.close() }
    }
}

/// Resumes a continuation once, whoever calls first.
private final class ResumeOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = Mutex(continuation)
    }

    func callAsFunction() {
        continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }?.resume()
    }
}
