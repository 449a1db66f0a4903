/// Sends a file's body in chunks from the shared bytes (never a copy of the
/// whole), throttled if asked, then ends the response as its fault says.
struct BodySender {
    enum Ending {
        case finish(keepAlive: Bool)
        /// Closed without the rest (a body shorter than announced).
        case close
        case reset
        /// Nothing more, the connection kept open until the client leaves.
        case hang
        /// Wait for `release` (then finish) or `goAway` (reset).
        case hold
    }

    let socket: ConnectionSocket
    let shared: SharedState
    let path: String
    let bytes: [UInt8]
    /// Where the body stops before its ending (the end, or a fault's count).
    var limit: Int
    let end: Int
    let ending: Ending
    private let chunk: Int
    /// Throttled: a chunk every 50 ms.
    private let pause: Int32?

    init(
        socket: ConnectionSocket, shared: SharedState, path: String, bytes: [UInt8], limit: Int, end: Int,
        bytesPerSecond: Int?, ending: Ending
    ) {
        (self.socket, self.shared, self.path, self.bytes) = (socket, shared, path, bytes)
        (self.limit, self.end, self.ending) = (limit, end, ending)
        if let rate = bytesPerSecond {
            // 20 slices a second.
            chunk = max(1, rate / 20)
            pause = 50
        } else {
            chunk = 1 << 20
            pause = nil
        }
    }

    /// Sends `head`, then the body from `start`; nil when the response ended
    /// and the connection reads its next request. The head goes out with the
    /// first body bytes: a response cut before any (a reset, a hang at 0)
    /// sends nothing at all, as the tests' clients have always seen it.
    mutating func send(head: [UInt8], from start: Int) -> ConnectionEnd? {
        var unsentHead: [UInt8]? = head
        var offset = start
        var held = false
        while true {
            if offset >= limit {
                if case .hold = ending, !held {
                    held = true
                    switch hold() {
                    case .goOn:
                        limit = end
                        continue
                    case let .ended(connectionEnd):
                        return connectionEnd
                    }
                }
                return finish(unsentHead: unsentHead)
            }
            if let head = unsentHead {
                guard socket.send(head) else { return .close }
                unsentHead = nil
            }
            let stop = min(limit, offset + chunk)
            let sent = bytes.withUnsafeBytes { socket.send(UnsafeRawBufferPointer(rebasing: $0[offset..<stop])) }
            guard sent else { return .close }
            shared.state.withLock { state in state.bytesSent[path, default: 0] += stop - offset }
            offset = stop
            if let pause, socket.wait(milliseconds: pause) == .peerGone { return .close }
        }
    }

    private func finish(unsentHead: [UInt8]?) -> ConnectionEnd? {
        switch ending {
        case let .finish(keepAlive):
            if let unsentHead, !socket.send(unsentHead) { return .close }
            return keepAlive ? nil : .close
        case .close:
            return .close
        case .reset:
            return .reset
        case .hang:
            _ = socket.wait(milliseconds: -1)
            return .close
        case .hold:
            // Released and sent: ends as a normal response, connection kept.
            if let unsentHead, !socket.send(unsentHead) { return .close }
            return nil
        }
    }

    private enum HoldOutcome {
        case goOn
        case ended(ConnectionEnd)
    }

    /// Registers the response at its hold and sleeps until `release`,
    /// `goAway`, the client leaving or the server stopping.
    private func hold() -> HoldOutcome {
        guard let waiting = try? HeldResponse() else { return .ended(.close) }
        let registered: Bool? = shared.state.withLock { state in
            // Gone: reset. Released already: no hold.
            if state.gone { return nil }
            if state.released.contains(path) { return false }
            state.held[path, default: []].append(waiting)
            return true
        }
        switch registered {
        case nil:
            return .ended(.reset)
        case false?:
            return .goOn
        case true?:
            guard socket.wait(milliseconds: -1, signal: waiting.wakeDescriptor) == .signalled else { return .ended(.close) }
            return waiting.decision == .resume ? .goOn : .ended(.reset)
        }
    }
}

/// A response waiting at its hold: `release` lets it go on, `goAway` resets
/// it. Either wakes the connection's poll through a pipe.
final class HeldResponse: Sendable {
    enum Decision: Sendable {
        case resume
        case reset
    }

    private let decided = LockedValue<Decision?>(nil)
    private let signal: WakePipe

    init() throws(SocketError) {
        signal = try WakePipe()
    }

    // Closed with the last reference: no wake can then write to a reused number.
    deinit { signal.close() }

    var wakeDescriptor: Int32 { signal.readEnd }
    var decision: Decision? { decided.withLock { $0 } }

    func resume() { decide(.resume) }
    func reset() { decide(.reset) }

    private func decide(_ choice: Decision) {
        let first = decided.withLock { current in
            guard current == nil else { return false }
            current = choice
            return true
        }
        if first { signal.wake() }
    }
}
