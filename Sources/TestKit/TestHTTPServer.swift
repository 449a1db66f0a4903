import Foundation

/// A loopback HTTP/1.1 server for tests and benchmarks: serves generated files
/// with Range, If-Range, ETag and If-None-Match, throttles on request, and
/// injects faults. It counts requests, so "downloaded exactly once" is
/// asserted, not assumed. Plain sockets, a thread per connection
/// (`LoopbackListener`): no event-loop library to build for a test server.
public final class TestHTTPServer: Sendable {
    /// A misbehaviour for one request; queued per path and used in order.
    public enum Fault: Sendable, Equatable {
        /// Answer with this status and a short body.
        case status(Int)
        /// Send headers and this many body bytes, then reset the connection.
        case resetAfter(Int)
        /// Announce `extra` more bytes than the file has, send the file, close.
        case wrongLength(extra: Int)
        /// Send headers and this many body bytes, then nothing more (keeps the connection open).
        case hangAfter(Int)
        /// Answer 200 with the whole file even to a Range request.
        case ignoreRange
        /// Send headers and this many body bytes, then hold the rest until
        /// `release` (or `goAway`, which resets it): "the download is not
        /// over" without timing.
        case holdAfter(Int)
    }

    /// A request as the server saw it.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        /// What followed `?` in the request's target ("" when nothing did).
        public var query: String = ""
    }

    struct File: Sendable {
        var bytes: [UInt8]
        var etag: String?
        var lastModified: String?
        var contentType: String
        /// A `Content-Encoding` sent whatever the client asked for (a
        /// server that compresses anyway).
        var contentEncoding: String?
    }

    struct State: Sendable {
        var files: [String: File] = [:]
        var faults: [String: [Fault]] = [:]
        var throttles: [String: Int] = [:]
        var redirects: [String: String] = [:]
        var requests: [Request] = []
        var bytesSent: [String: Int] = [:]
        var held: [String: [HeldResponse]] = [:]
        /// Paths released before their response reached the hold.
        var released: Set<String> = []
        /// Gone away: connections are reset (see `goAway`).
        var gone = false
        /// Live streams (`serveLive`), and their connections so far.
        var live: [String: IcyStreamSpec] = [:]
        var liveConnections: [String: Int] = [:]
    }

    let shared = SharedState()
    private let listener: LoopbackListener
    public let port: Int

    public init() throws {
        listener = try LoopbackListener { [shared] socket in
            RequestHandler(shared: shared, socket: socket).serveConnection()
        }
        port = listener.port
    }

    /// The port refuses connections and every connection is ended when
    /// this returns; their threads end on their own (never waited for on
    /// the cooperative pool a test's deinit runs on).
    deinit {
        listener.stopWithoutWaiting()
    }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Serves `bytes` at `path`. A new call replaces the file (and its ETag).
    public func serve(
        _ path: String, bytes: [UInt8], etag: String? = nil, lastModified: String? = "Sat, 01 Nov 2025 10:00:00 GMT",
        contentType: String = "application/octet-stream", contentEncoding: String? = nil
    ) {
        let tag = etag ?? "\"\(bytes.count)-\(Self.checksum(bytes))\""
        shared.state.withLock {
            $0.files[path] = File(bytes: bytes, etag: tag, lastModified: lastModified, contentType: contentType, contentEncoding: contentEncoding)
        }
    }

    /// Serves without any validator (no ETag, no Last-Modified).
    public func serveWithoutValidators(_ path: String, bytes: [UInt8]) {
        shared.state.withLock { $0.files[path] = File(bytes: bytes, etag: nil, lastModified: nil, contentType: "application/octet-stream") }
    }

    public func redirect(_ path: String, to target: String) {
        shared.state.withLock { $0.redirects[path] = target }
    }

    public func inject(_ path: String, _ faults: [Fault]) {
        shared.state.withLock { $0.faults[path, default: []].append(contentsOf: faults) }
    }

    /// Limits the body rate of `path` (0 removes the limit).
    public func throttle(_ path: String, bytesPerSecond: Int) {
        shared.state.withLock { $0.throttles[path] = bytesPerSecond == 0 ? nil : bytesPerSecond }
    }

    /// GET requests received for `path`.
    public func getCount(_ path: String) -> Int {
        shared.state.withLock { $0.requests.filter { $0.path == path && $0.method == "GET" }.count }
    }

    /// Sends the rest of the responses held at `path` (see `holdAfter`).
    public func release(_ path: String) {
        let pumps = shared.state.withLock { state in
            state.released.insert(path)
            return state.held.removeValue(forKey: path) ?? []
        }
        for pump in pumps { pump.resume() }
    }

    /// Body bytes sent for `path`, over every response.
    public func bytesSent(_ path: String) -> Int {
        shared.state.withLock { $0.bytesSent[path] ?? 0 }
    }

    /// Waits until at least `bytes` of `path` have been sent (over every
    /// response), woken by each write; false after `timeout` seconds.
    public func waitUntilSent(_ path: String, atLeast bytes: Int, timeout: Double = 30) async -> Bool {
        let shared = shared
        return await offPool { shared.state.wait(until: { ($0.bytesSent[path] ?? 0) >= bytes }, timeout: timeout) }
    }

    /// The server goes away: every new connection is reset at once and
    /// held responses are reset, until `comeBack()`.
    public func goAway() {
        let pumps = shared.state.withLock { state in
            state.gone = true
            defer { state.held.removeAll() }
            return state.held.values.flatMap { $0 }
        }
        for pump in pumps { pump.reset() }
    }

    public func comeBack() {
        shared.state.withLock { $0.gone = false }
    }

    public func requests(_ path: String) -> [Request] {
        shared.state.withLock { $0.requests.filter { $0.path == path } }
    }

    /// Deterministic pseudo-random bytes (xorshift), different per seed.
    public static func bytes(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        result.withUnsafeMutableBytes { raw in
            var index = 0
            while index < count {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
                var word = x
                for _ in 0..<8 where index < count {
                    raw[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
        }
        return result
    }

    static func checksum(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in bytes.prefix(65536) { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(hash &+ UInt64(bytes.count), radix: 16)
    }
}

/// The server's state, shared by reference with every connection's thread.
final class SharedState: Sendable {
    let state = LockedValue(TestHTTPServer.State())
}
