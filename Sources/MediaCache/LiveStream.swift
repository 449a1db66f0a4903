import CCurl
import Foundation
import MediaCacheFolder
import MediaInterfaces
import MediaModel


/// A stream with no end (internet radio): read live over one libcurl
/// transfer on a thread of its own, never written to the cache. The player
/// reads it in order from a bounded buffer (while paused, the transfer waits
/// when the buffer is full); ICY stream titles are reported as they come. A
/// dropped connection is made again, up to `maximumReconnects` times in a
/// row, each said through `onNotice`.
public final class LiveStream: @unchecked Sendable {
    public let name: String
    public var onWait: (@Sendable (Bool) -> Void)?
    /// Each new stream title (`StreamTitle`), on the transfer's thread.
    public var onTitle: (@Sendable (String) -> Void)?
    /// A reconnection, in words for the status line; nil once the stream
    /// flows again (the notice is over).
    public var onNotice: (@Sendable (String?) -> Void)?
    /// A reconnection notice is showing (the transfer's thread only).
    fileprivate var reconnecting = false
    public var isLive: Bool { true }

    /// About a minute of a 128 kb/s stream.
    static let capacity = 1 << 20
    public static let maximumReconnects = 5

    private let url: URL
    /// The pause between reconnections is waited on it.
    private let clock: any MediaClock
    private let condition = NSCondition()
    /// Received audio; what was read before `head` is spent (dropped in
    /// one move once it is half the buffer, not at every read).
    private var buffer: [UInt8] = []
    private var head = 0
    /// Where `buffer[head]` is in the stream.
    private var start: Int64 = 0

    private var unread: Int { buffer.count - head }
    private var failure: String?
    private var interrupted = false
    private var started = false

    public init(url: URL, clock: any MediaClock = SystemClock.shared) {
        self.url = url
        self.clock = clock
        name = url.lastPathComponent.isEmpty ? (url.host ?? "stream") : url.lastPathComponent
    }

    public func size() throws -> Int64? { nil }

    public func read(into target: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        startIfNeeded()
        condition.lock()
        defer { condition.unlock() }
        var waited = false
        while unread == 0, failure == nil, !interrupted {
            if !waited {
                waited = true
                onWait?(true)
            }
            condition.wait()
        }
        if waited { onWait?(false) }
        if interrupted { throw CacheError.cancelled }
        if unread == 0, let failure { throw CacheError.network(failure) }
        // In order only: a live stream cannot go back or skip ahead.
        guard offset == start else { throw CacheError.unsupported("a live stream cannot seek") }
        let count = min(target.count, unread)
        buffer.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[head..<(head + count)])) }
        head += count
        start += Int64(count)
        if head >= Self.capacity / 2 {
            buffer.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return count
    }

    public func interrupt() {
        condition.withLock {
            interrupted = true
            condition.broadcast()
        }
    }

    private func startIfNeeded() {
        let first = condition.withLock { () -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let thread = Thread { [self] in run() }
        thread.name = "mediaplay.live"
        thread.start()
    }

    /// Transfers until interrupted, reconnecting after a drop.
    private func run() {
        _ = CurlGlobal.initialized
        var reconnects = 0
        while true {
            let (received, reason, lasting) = transfer()
            if condition.withLock({ interrupted }) { return }
            // A redirect off a server's own URL is refused for good: no retry.
            if lasting {
                condition.withLock {
                    failure = reason
                    condition.broadcast()
                }
                return
            }
            // A connection that delivered something earns a fresh count.
            if received > 0 { reconnects = 0 }
            reconnects += 1
            guard reconnects <= Self.maximumReconnects else {
                condition.withLock {
                    failure = "the stream was lost (\(reason)) and \(Self.maximumReconnects) reconnections failed"
                    condition.broadcast()
                }
                return
            }
            reconnecting = true
            onNotice?("stream lost (\(reason)); reconnecting (\(reconnects) of \(Self.maximumReconnects))")
            // A pause between tries, ended at once by a stop.
            let until = clock.now + min(8, 0.5 * Double(1 << (reconnects - 1)))
            condition.lock()
            while !interrupted, clock.wait(on: condition, until: until) {}
            let stop = interrupted
            condition.unlock()
            if stop { return }
        }
    }

    /// One connection: the bytes it delivered, why it ended, and whether
    /// that lasts (another try would meet it again).
    private func transfer() -> (received: Int64, reason: String, lasting: Bool) {
        guard let handle = curl_easy_init() else { return (0, "libcurl could not start a transfer", false) }
        defer { curl_easy_cleanup(handle) }
        var requestHeaders: UnsafeMutablePointer<curl_slist>?
        requestHeaders = curl_slist_append(requestHeaders, "Icy-MetaData: 1")
        defer { curl_slist_free_all(requestHeaders) }
        let connection = LiveConnection(stream: self)
        connection.headers.stayOn = ResponseHeaders.origin(for: url)
        let unmanaged = Unmanaged.passRetained(connection)
        defer { unmanaged.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
            url.absoluteString.withCString { urlPointer in
                CurlOptions.applySafeDefaults(handle)
                _ = mp_curl_easy_setopt_string(handle, CURLOPT_URL, urlPointer)
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorPointer.baseAddress)
                _ = mp_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders)
                _ = mp_curl_easy_setopt_write_function(handle, liveStreamWrite)
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, unmanaged.toOpaque())
                _ = mp_curl_easy_setopt_header_function(handle, liveStreamHeader)
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, unmanaged.toOpaque())
                let code = curl_easy_perform(handle)
                // The buffer lives only in this closure; the clean-up after it may still write errors.
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                return code
            }
        }
        var status = 0
        mp_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let host = url.host ?? url.absoluteString.redactingUserinfo
        if let elsewhere = connection.headers.refusedRedirect { return (connection.received, ResponseHeaders.redirectRefused(from: host, to: elsewhere), true) }
        if status >= 400 { return (connection.received, "HTTP \(status) from \(host)", false) }
        if code == CURLE_OK { return (connection.received, "the server ended it", false) }
        let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (connection.received, detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail, false)
    }

    /// Audio from the transfer: waits while the buffer is full (the player is
    /// paused); false ends the transfer (a stop).
    fileprivate func append(_ audio: [UInt8]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while unread >= Self.capacity, !interrupted { condition.wait() }
        if interrupted { return false }
        buffer.append(contentsOf: audio)
        condition.broadcast()
        return true
    }

    fileprivate var stopped: Bool { condition.withLock { interrupted } }
}

/// One connection's state for libcurl's callbacks.
private final class LiveConnection {
    unowned let stream: LiveStream
    var headers = ResponseHeaders()
    var icy: IcyReader?
    var received: Int64 = 0

    init(stream: LiveStream) {
        self.stream = stream
    }
}

private func liveStreamHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let length = size * count
    return Unmanaged<LiveConnection>.fromOpaque(context).takeUnretainedValue().headers.add(line: UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private func liveStreamWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let connection = Unmanaged<LiveConnection>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    if connection.icy == nil {
        connection.icy = IcyReader(interval: connection.headers["icy-metaint"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    }
    let (audio, titles) = connection.icy!.feed(UnsafeRawBufferPointer(start: data, count: length))
    connection.received += Int64(length)
    // Sound again after a reconnection: its notice is cleared.
    if !audio.isEmpty, connection.stream.reconnecting {
        connection.stream.reconnecting = false
        connection.stream.onNotice?(nil)
    }
    for title in titles { connection.stream.onTitle?(title) }
    if !audio.isEmpty, !connection.stream.append(audio) { return 0 }
    return connection.stream.stopped ? 0 : length
}
