import Foundation

/// Answers one connection's requests for `TestHTTPServer`, faults included,
/// on that connection's thread: requests are read and answered in turn.
struct RequestHandler {
    let shared: SharedState
    let socket: ConnectionSocket

    /// Serves requests until the connection is over.
    func serveConnection() -> ConnectionEnd {
        // Gone: a new connection is reset at once.
        if shared.state.withLock({ $0.gone }) { return .reset }
        var reader = HTTPRequestReader(socket: socket)
        while true {
            switch reader.next() {
            case .closed:
                return .close
            case .malformed:
                // A request that cannot be read: 400, and the connection closed.
                _ = socket.send(HTTPResponseHead(status: 400, headers: [("Connection", "close"), ("Content-Length", "0")]).bytes())
                return .close
            case let .request(head):
                if let end = respond(to: head) { return end }
            }
        }
    }

    /// Answers one request; nil when the connection goes on to the next.
    private func respond(to request: HTTPRequestHead) -> ConnectionEnd? {
        // Gone means gone on a kept-alive connection too: a client whose
        // pool held one got whole answers after goAway().
        if shared.state.withLock({ $0.gone }) { return .reset }
        let path = String(request.target.split(separator: "?", maxSplits: 1).first ?? "")
        var headerMap: [String: String] = [:]
        for (name, value) in request.headers { headerMap[name.lowercased()] = value }
        let (file, fault, throttle, redirect) = shared.state.withLock { state in
            let query = request.target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            state.requests.append(.init(method: request.method, path: path, headers: headerMap, query: query))
            var fault: TestHTTPServer.Fault?
            if var queue = state.faults[path], !queue.isEmpty {
                fault = queue.removeFirst()
                state.faults[path] = queue
            }
            return (state.files[path], fault, state.throttles[path], state.redirects[path])
        }
        let keepAlive = request.keepAlive
        // A response to HEAD has its head only, whatever the code below sends.
        let bodyAllowed = request.method != "HEAD"

        let live: (IcyStreamSpec, Int)? = shared.state.withLock { state in
            guard let spec = state.live[path] else { return nil }
            state.liveConnections[path, default: 0] += 1
            return (spec, state.liveConnections[path]!)
        }
        if let (spec, connection) = live {
            // No length: chunked, forever, as a radio server streams.
            let withMetadata = headerMap["icy-metadata"] == "1"
            var headers = [("Content-Type", "audio/mpeg"), ("icy-name", "Loopback FM"), ("Cache-Control", "no-cache")]
            if withMetadata { headers.append(("icy-metaint", "\(spec.metaint)")) }
            guard socket.send(HTTPResponseHead(status: 200, headers: headers).bytes()) else { return .close }
            let cut = connection <= spec.drops ? spec.dropAfter : nil
            var pump = IcyPump(socket: socket, spec: spec, withMetadata: withMetadata, cutAfter: cut, bodyAllowed: bodyAllowed)
            return pump.run()
        }

        if let redirect {
            var headers = [("Location", redirect), ("Content-Length", "0")]
            if !keepAlive { headers.append(("Connection", "close")) }
            return send(status: 302, headers: headers, body: [], keepAlive: keepAlive, bodyAllowed: bodyAllowed)
        }
        if case let .status(code)? = fault {
            let body = Array("injected \(code)\n".utf8)
            return send(status: code, headers: [("Content-Length", "\(body.count)")], body: body, keepAlive: keepAlive, bodyAllowed: bodyAllowed)
        }
        guard let file else {
            let body = Array("not found\n".utf8)
            return send(status: 404, headers: [("Content-Length", "\(body.count)")], body: body, keepAlive: keepAlive, bodyAllowed: bodyAllowed)
        }

        var headers = [("Content-Type", file.contentType), ("Accept-Ranges", "bytes")]
        if let etag = file.etag { headers.append(("ETag", etag)) }
        if let encoding = file.contentEncoding { headers.append(("Content-Encoding", encoding)) }
        if let lastModified = file.lastModified { headers.append(("Last-Modified", lastModified)) }

        if let ifNoneMatch = headerMap["if-none-match"], ifNoneMatch == file.etag {
            headers.append(("Content-Length", "0"))
            return send(status: 304, headers: headers, body: [], keepAlive: keepAlive, bodyAllowed: bodyAllowed)
        }

        // Range, honoured only when If-Range (if any) matches the current entity.
        var start = 0
        var end = file.bytes.count
        var status = 200
        if fault != .ignoreRange, let range = headerMap["range"], let parsed = Self.parseRange(range, size: file.bytes.count) {
            let ifRange = headerMap["if-range"]
            if ifRange == nil || ifRange == file.etag || ifRange == file.lastModified {
                if parsed.start >= file.bytes.count {
                    headers.append(("Content-Range", "bytes */\(file.bytes.count)"))
                    headers.append(("Content-Length", "0"))
                    return send(status: 416, headers: headers, body: [], keepAlive: keepAlive, bodyAllowed: bodyAllowed)
                }
                start = parsed.start
                end = parsed.end
                status = 206
                headers.append(("Content-Range", "bytes \(start)-\(end - 1)/\(file.bytes.count)"))
            }
        }
        var announced = end - start
        if case let .wrongLength(extra)? = fault { announced += extra }
        headers.append(("Content-Length", "\(announced)"))

        if !bodyAllowed {
            return send(status: status, headers: headers, body: [], keepAlive: keepAlive, bodyAllowed: bodyAllowed)
        }

        var stopAfter: Int?
        var then = BodySender.Ending.finish(keepAlive: keepAlive)
        switch fault {
        case let .resetAfter(count)?:
            stopAfter = count
            then = .reset
        case let .hangAfter(count)?:
            stopAfter = count
            then = .hang
        case let .holdAfter(count)?:
            stopAfter = count
            then = .hold
        case .wrongLength?:
            then = .close
        default:
            break
        }
        var sender = BodySender(
            socket: socket, shared: shared, path: path, bytes: file.bytes,
            limit: stopAfter.map { min(end, start + $0) } ?? end, end: end, bytesPerSecond: throttle, ending: then
        )
        let head = HTTPResponseHead(version: request.version, status: status, headers: headers)
        return sender.send(head: head.bytes(), from: start)
    }

    /// A whole response at once (redirects, errors, 304, HEAD): then closed
    /// unless the request keeps the connection.
    private func send(status: Int, headers: [(String, String)], body: [UInt8], keepAlive: Bool, bodyAllowed: Bool) -> ConnectionEnd? {
        var bytes = HTTPResponseHead(status: status, headers: headers).bytes()
        if bodyAllowed { bytes += body }
        guard socket.send(bytes) else { return .close }
        return keepAlive ? nil : .close
    }

    /// "bytes=N-" or "bytes=N-M" → half-open [start, end).
    static func parseRange(_ text: String, size: Int) -> (start: Int, end: Int)? {
        guard text.hasPrefix("bytes=") else { return nil }
        let spec = text.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-"), let start = Int(spec[..<dash]) else { return nil }
        let last = spec[spec.index(after: dash)...]
        let end = last.isEmpty ? size : min(size, (Int(last) ?? size - 1) + 1)
        return (start, max(start, end))
    }
}
