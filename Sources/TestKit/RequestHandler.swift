import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers one connection's requests for `TestHTTPServer`, faults included.
final class RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let shared: SharedState
    private var head: HTTPRequestHead?

    init(shared: SharedState) {
        self.shared = shared
    }

    func channelActive(context: ChannelHandlerContext) {
        if shared.state.withLock({ $0.gone }) {
            BodyPump.resetConnection(context.channel)
            return
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(request):
            head = request
        case .body:
            break
        case .end:
            if let head { respond(context: context, to: head) }
            head = nil
        }
    }

    private func respond(context: ChannelHandlerContext, to request: HTTPRequestHead) {
        // Gone means gone on a kept-alive connection too: a client whose
        // pool held one got whole answers after goAway().
        if shared.state.withLock({ $0.gone }) {
            BodyPump.resetConnection(context.channel)
            return
        }
        let path = String(request.uri.split(separator: "?", maxSplits: 1).first ?? "")
        var headerMap: [String: String] = [:]
        for (name, value) in request.headers { headerMap[name.lowercased()] = value }
        let (file, fault, throttle, redirect) = shared.state.withLock { state in
            state.requests.append(.init(method: "\(request.method)", path: path, headers: headerMap))
            var fault: TestHTTPServer.Fault?
            if var queue = state.faults[path], !queue.isEmpty {
                fault = queue.removeFirst()
                state.faults[path] = queue
            }
            return (state.files[path], fault, state.throttles[path], state.redirects[path])
        }
        let keepAlive = request.isKeepAlive

        let live: (IcyStreamSpec, Int)? = shared.state.withLock { state in
            guard let spec = state.live[path] else { return nil }
            state.liveConnections[path, default: 0] += 1
            return (spec, state.liveConnections[path]!)
        }
        if let (spec, connection) = live {
            // No length: chunked, forever, as a radio server streams.
            let withMetadata = headerMap["icy-metadata"] == "1"
            var headers = HTTPHeaders([("Content-Type", "audio/mpeg"), ("icy-name", "Loopback FM"), ("Cache-Control", "no-cache")])
            if withMetadata { headers.add(name: "icy-metaint", value: "\(spec.metaint)") }
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            let cut = connection <= spec.drops ? spec.dropAfter : nil
            IcyPump(channel: context.channel, spec: spec, withMetadata: withMetadata, cutAfter: cut).start()
            return
        }

        if let redirect {
            var headers = HTTPHeaders([("Location", redirect), ("Content-Length", "0")])
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            send(context: context, status: .found, headers: headers, body: [], keepAlive: keepAlive)
            return
        }
        if case let .status(code)? = fault {
            let body = Array("injected \(code)\n".utf8)
            send(context: context, status: HTTPResponseStatus(statusCode: code),
                 headers: HTTPHeaders([("Content-Length", "\(body.count)")]), body: body, keepAlive: keepAlive)
            return
        }
        guard let file else {
            let body = Array("not found\n".utf8)
            send(context: context, status: .notFound, headers: HTTPHeaders([("Content-Length", "\(body.count)")]), body: body, keepAlive: keepAlive)
            return
        }

        var headers = HTTPHeaders([("Content-Type", file.contentType), ("Accept-Ranges", "bytes")])
        if let etag = file.etag { headers.add(name: "ETag", value: etag) }
        if let encoding = file.contentEncoding { headers.add(name: "Content-Encoding", value: encoding) }
        if let lastModified = file.lastModified { headers.add(name: "Last-Modified", value: lastModified) }

        if let ifNoneMatch = headerMap["if-none-match"], ifNoneMatch == file.etag {
            headers.add(name: "Content-Length", value: "0")
            send(context: context, status: .notModified, headers: headers, body: [], keepAlive: keepAlive)
            return
        }

        // Range, honoured only when If-Range (if any) matches the current entity.
        var start = 0
        var end = file.bytes.count
        var status = HTTPResponseStatus.ok
        if fault != .ignoreRange, let range = headerMap["range"], let parsed = Self.parseRange(range, size: file.bytes.count) {
            let ifRange = headerMap["if-range"]
            if ifRange == nil || ifRange == file.etag || ifRange == file.lastModified {
                if parsed.start >= file.bytes.count {
                    headers.add(name: "Content-Range", value: "bytes */\(file.bytes.count)")
                    headers.add(name: "Content-Length", value: "0")
                    send(context: context, status: .rangeNotSatisfiable, headers: headers, body: [], keepAlive: keepAlive)
                    return
                }
                start = parsed.start
                end = parsed.end
                status = .partialContent
                headers.add(name: "Content-Range", value: "bytes \(start)-\(end - 1)/\(file.bytes.count)")
            }
        }
        var announced = end - start
        if case let .wrongLength(extra)? = fault { announced += extra }
        headers.add(name: "Content-Length", value: "\(announced)")

        if request.method == .HEAD {
            send(context: context, status: status, headers: headers, body: [], keepAlive: keepAlive)
            return
        }

        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        var stopAfter: Int?
        var then = BodyPump.Ending.finish(keepAlive: keepAlive)
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
        let limit = stopAfter.map { min(end, start + $0) } ?? end
        let shared = self.shared
        let pump = BodyPump(
            context: context, bytes: file.bytes, limit: limit, end: end, bytesPerSecond: throttle, ending: then,
            onSent: { count in shared.state.withLock { $0.bytesSent[path, default: 0] += count } },
            onHold: { pump in
                shared.state.withLock { state in
                    // Released already: no hold. Gone: reset.
                    if state.gone {
                        pump.reset()
                        return true
                    }
                    if state.released.contains(path) { return false }
                    state.held[path, default: []].append(pump)
                    return true
                }
            }
        )
        pump.write(from: start)
    }

    private func send(context: ChannelHandlerContext, status: HTTPResponseStatus, headers: HTTPHeaders, body: [UInt8], keepAlive: Bool) {
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
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

/// Writes a body in chunks, throttled if asked, then ends the response in the
/// requested way. Runs on the channel's event loop only.
final class BodyPump: @unchecked Sendable {
    enum Ending {
        case finish(keepAlive: Bool)
        case close
        case reset
        case hang
        /// Wait for `resume()` (then finish) or `reset()`.
        case hold
    }

    private let bound: NIOLoopBound<ChannelHandlerContext>
    private let eventLoop: any EventLoop
    private let bytes: [UInt8]
    private var limit: Int
    private let end: Int
    private var holding = false
    private let chunk: Int
    private let interval: TimeAmount?
    private let ending: Ending
    private let onSent: @Sendable (Int) -> Void
    /// Registers a response reaching its hold; false: released already, go on.
    private let onHold: @Sendable (BodyPump) -> Bool

    init(
        context: ChannelHandlerContext, bytes: [UInt8], limit: Int, end: Int, bytesPerSecond: Int?, ending: Ending,
        onSent: @escaping @Sendable (Int) -> Void, onHold: @escaping @Sendable (BodyPump) -> Bool
    ) {
        self.onSent = onSent
        self.onHold = onHold
        self.end = end
        bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        eventLoop = context.eventLoop
        self.bytes = bytes
        self.limit = limit
        self.ending = ending
        if let rate = bytesPerSecond {
            // 20 slices a second.
            chunk = max(1, rate / 20)
            interval = .milliseconds(50)
        } else {
            chunk = 1 << 20
            interval = nil
        }
    }

    func write(from offset: Int) {
        let context = bound.value
        guard context.channel.isActive else { return }
        if offset >= limit {
            if case .hold = ending, !holding {
                holding = true
                if onHold(self) { return }
                limit = end
                write(from: offset)
                return
            }
            finishResponse()
            return
        }
        let stop = min(limit, offset + chunk)
        let buffer = bytes.withUnsafeBufferPointer { pointer in
            context.channel.allocator.buffer(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(pointer)[offset..<stop]))
        }
        let written = context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))))
        written.whenComplete { [self] result in
            guard case .success = result else { return }
            onSent(stop - offset)
            if let interval {
                eventLoop.scheduleTask(in: interval) { self.write(from: stop) }
            } else {
                eventLoop.execute { self.write(from: stop) }
            }
        }
    }

    /// Sends the rest of a held response, then ends it normally.
    func resume() {
        eventLoop.execute { [self] in
            let from = limit
            limit = end
            write(from: from)
        }
    }

    /// Resets a held response's connection.
    func reset() {
        eventLoop.execute { [self] in resetConnection() }
    }

    private func resetConnection() {
        Self.resetConnection(bound.value.channel)
    }

    /// SO_LINGER 0: close() sends RST, as a crashed server or dropped link would.
    static func resetConnection(_ channel: any Channel) {
        if let provider = channel as? any SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
    }

    private func finishResponse() {
        let context = bound.value
        switch ending {
        case let .finish(keepAlive):
            let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
            if !keepAlive {
                let channel = context.channel
                done.whenComplete { _ in channel.close(promise: nil) }
            }
        case .close:
            context.channel.close(promise: nil)
        case .reset:
            resetConnection()
        case .hang:
            break
        case .hold:
            // Released and sent: end as a normal response.
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        }
    }
}
