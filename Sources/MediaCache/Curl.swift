import CCurl
import Foundation
import MediaCacheFolder
import Synchronization
import MediaInterfaces

/// libcurl's global set-up, done once before the first handle is made.
public enum CurlGlobal {
    static let initialized: Bool = {
        mp_curl_global_init_all() == CURLE_OK
    }()

    /// Begins the set-up on a thread of its own, for a command about to
    /// ask a server: libcurl loaded (CMediaLoader) with the 25 libraries it
    /// needs and TLS set up, 5–7 ms, beside the command's own start (a new
    /// cache index's making); the first handle waits for it to end.
    public static func begin() {
        guard !begun.exchange(true, ordering: .relaxed) else { return }
        settling.enter()
        Thread {
            _ = initialized
            settling.leave()
        }.start()
    }

    /// Waits for a set-up `begin` started: a command that needed no server
    /// after all (a fresh kept copy) must not exit while libcurl is being
    /// loaded and TLS set up (exit's clean-up would meet the set-up).
    public static func settle() {
        settling.wait()
    }

    private static let begun = Atomic<Bool>(false)
    private static let settling = DispatchGroup()
}

/// The libcurl version this process runs with, e.g. "7.88.1".
public var curlVersion: String {
    String(cString: mp_curl_version_info().pointee.version)
}

/// A response read into memory by `HTTPGet`.
public struct HTTPResponse: Sendable {
    /// 200, or 304 when the validators sent still hold (then `body` is empty).
    public var status: Int
    public var body: [UInt8]
    /// The validators to send next time (`If-None-Match`, `If-Modified-Since`).
    public var etag: String?
    public var lastModified: String?

    public var notModified: Bool { status == 304 }
}

/// A single blocking HTTP GET into memory: enough to read a remote feed.
///
/// It blocks the calling thread, so call it from a thread of its own or the
/// main thread of a command, never from Swift's cooperative pool.
public enum HTTPGet {
    public static let userAgent = "mediaplay/0.1 (+libcurl)"

    /// With `etag` or `lastModified`, a conditional request: a server whose
    /// copy has not changed answers 304 without a body. With `post`, a POST
    /// of those bytes (with `headers`). `followsRedirects` false: redirects
    /// only within the URL's own server (a media server's API), as for the
    /// URLs a server's item maker made.
    public static func fetch(
        _ url: URL, maximumBytes: Int64 = 16 << 20, etag: String? = nil, lastModified: String? = nil,
        timeout: Int = NetworkLimits.timeout, post: [UInt8]? = nil, headers: [String] = [], followsRedirects: Bool = true,
        cancellation: TransferCancellation? = nil
    ) throws(TransferError) -> HTTPResponse {
        _ = CurlGlobal.initialized
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw TransferError(kind: .unsupported, message: "only http and https URLs can be fetched: \(url.absoluteString.redactingUserinfo)")
        }
        guard let handle = curl_easy_init() else {
            throw TransferError(kind: .network(code: -1), message: "libcurl could not start a transfer")
        }
        defer { curl_easy_cleanup(handle) }
        var requestHeaders: UnsafeMutablePointer<curl_slist>?
        if let etag { requestHeaders = curl_slist_append(requestHeaders, "If-None-Match: \(etag)") }
        if let lastModified { requestHeaders = curl_slist_append(requestHeaders, "If-Modified-Since: \(lastModified)") }
        for header in headers { requestHeaders = curl_slist_append(requestHeaders, header) }
        defer { if let requestHeaders { curl_slist_free_all(requestHeaders) } }

        let sink = MemorySink(limit: maximumBytes, cancellation: cancellation)
        sink.headers.stayOn = ResponseHeaders.origin(for: url, serverOnly: !followsRedirects)
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
            RequestSigning.signed(url).absoluteString.withCString { urlPointer in
                CurlOptions.applySafeDefaults(handle)
                _ = mp_curl_easy_setopt_string(handle, CURLOPT_URL, urlPointer)
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorPointer.baseAddress)
                _ = mp_curl_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumBytes))
                // The whole answer within the deadline, however it trickles.
                _ = mp_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT, timeout)
                // A feed is text: accept any compression libcurl can undo.
                _ = mp_curl_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
                if let requestHeaders { _ = mp_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders) }
                // A POST (a UPnP server's SOAP call): libcurl copies the body.
                if let post {
                    _ = mp_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(post.count))
                    var copy = post
                    copy.withUnsafeMutableBytes { _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
                }
                _ = mp_curl_easy_setopt_write_function(handle, memorySinkWrite)
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, unmanaged.toOpaque())
                _ = mp_curl_easy_setopt_header_function(handle, memorySinkHeader)
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, unmanaged.toOpaque())
                if cancellation != nil {
                    _ = mp_curl_easy_setopt_xferinfo_function(handle, memorySinkProgress)
                    _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, unmanaged.toOpaque())
                    _ = mp_curl_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
                }
                let code = curl_easy_perform(handle)
                // The buffer lives only in this closure; the clean-up after it may still write errors.
                _ = mp_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                return code
            }
        }

        var status = 0
        mp_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let host = url.host ?? url.absoluteString.redactingUserinfo
        if let elsewhere = sink.headers.refusedRedirect {
            throw TransferError(kind: .network(code: Int(code.rawValue)), message: ResponseHeaders.redirectRefused(from: host, to: elsewhere))
        }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            throw TransferError(kind: .tooLarge(limit: maximumBytes), message: "\(url.absoluteString.redactingUserinfo) is larger than \(maximumBytes) bytes")
        }
        if code == CURLE_ABORTED_BY_CALLBACK {
            throw TransferError(kind: .network(code: Int(CURLE_ABORTED_BY_CALLBACK.rawValue)), message: "the transfer from \(host) was called off")
        }
        if code == CURLE_OPERATION_TIMEDOUT {
            throw TransferError(
                kind: .network(code: Int(code.rawValue)),
                message: "no whole answer within \(timeout) s (\(host)); a slow server can be given longer with [network] timeout in config.toml"
            )
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw TransferError(kind: .network(code: Int(code.rawValue)), message: "\(text) (\(host))")
        }
        if status >= 400 {
            throw TransferError(kind: .http(status: status), message: "HTTP \(status) from \(host)")
        }
        return HTTPResponse(status: status, body: sink.bytes, etag: sink.headers["etag"], lastModified: sink.headers["last-modified"])
    }
}

/// Options every transfer gets: http(s) only, bounded redirects, TLS
/// verification on, and aborts for dead or stalled connections.
enum CurlOptions {
    /// A media server's URLs follow redirects only within the server itself
    /// (`ResponseHeaders.stayOn`): a redirect elsewhere stops the transfer.
    static func applySafeDefaults(_ handle: UnsafeMutableRawPointer) {
        _ = mp_curl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = mp_curl_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_MAXREDIRS, 5)
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 20)
        // Abort when fewer than 1 byte/s arrive for 30 s: a hung server.
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 30)
        _ = mp_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = mp_curl_easy_setopt_string(handle, CURLOPT_USERAGENT, HTTPGet.userAgent)
    }
}

/// The headers of the last response libcurl reported, by lower-cased name,
/// for both the transfer engine and `HTTPGet`.
struct ResponseHeaders {
    private var values: [String: String] = [:]
    /// The origin (scheme, host, port) a transfer must stay on: a media
    /// server's own URL, redirected only within the server.
    var stayOn: URL?
    /// Where a redirect off `stayOn` would have gone (its origin): the
    /// transfer was stopped there.
    private(set) var refusedRedirect: String?
    private var redirecting = false

    /// `stayOn` for a transfer of `url`: its origin when a media server made
    /// it (or the caller asks), else nil (redirects followed as for any URL).
    static func origin(for url: URL, serverOnly: Bool = false) -> URL? {
        serverOnly || !RequestSigning.followsRedirects(url) ? url : nil
    }

    /// One line from libcurl's header callback. A status line starts a new
    /// response (a redirect's target, or the answer after 100 Continue):
    /// only the last one's headers count.
    /// False: the transfer must stop (a redirect off `stayOn`).
    @discardableResult
    mutating func add(line bytes: UnsafeRawBufferPointer) -> Bool {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            values.removeAll()
            // The code after the version, however spaced or ended; one not
            // read counts as a redirect (a server's URL fails closed).
            let code = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }).dropFirst().first.flatMap { Int($0) }
            redirecting = code.map { (300..<400).contains($0) } ?? true
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        values[name] = value
        if redirecting, name == "location", let stayOn {
            guard let target = URL(string: value, relativeTo: stayOn)?.absoluteURL else {
                // libcurl reads a target more leniently than Foundation, and would follow it.
                refusedRedirect = "another host"
                return false
            }
            if !Self.sameOrigin(target, stayOn) {
                refusedRedirect = Self.originText(target)
                return false
            }
        }
        return true
    }

    /// The one line for a transfer stopped at a redirect off its server.
    static func redirectRefused(from host: String, to elsewhere: String) -> String {
        "the media server \(host) redirected to \(elsewhere); a server's files are fetched only from the server itself"
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }

    private static func port(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }

    /// `host` or `host:port`, no path or login (it is said to the user; a
    /// host of other characters than a name's or an address's is not).
    static func originText(_ url: URL) -> String {
        let host = url.host ?? ""
        let plain = !host.isEmpty && host.utf8.count <= 253
            && host.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-:[]".unicodeScalars.contains($0)) }
        let shown = plain ? host : "another host"
        return url.port.map { "\(shown):\($0)" } ?? shown
    }

    mutating func removeAll() { values.removeAll() }

    subscript(name: String) -> String? { values[name] }
}

/// Collects a response's headers and body, refusing to grow past a limit.
final class MemorySink {
    var headers = ResponseHeaders()
    var bytes: [UInt8] = []
    let limit: Int64
    var overflowed = false
    let cancellation: TransferCancellation?

    init(limit: Int64, cancellation: TransferCancellation? = nil) {
        self.limit = limit
        self.cancellation = cancellation
    }
}

/// Calls off a one-shot transfer from another thread: it ends at libcurl's
/// next progress call (about a second at most while the server is silent)
/// instead of at its deadline.
public final class TransferCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)

    public init() {}

    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

/// libcurl's progress callback for a `MemorySink` that may be called off:
/// nonzero stops the transfer (CURLE_ABORTED_BY_CALLBACK).
func memorySinkProgress(
    _ context: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloadNow: curl_off_t, _ uploadTotal: curl_off_t, _ uploadNow: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    let sink = Unmanaged<MemorySink>.fromOpaque(context).takeUnretainedValue()
    return sink.cancellation?.isCancelled == true ? 1 : 0
}

/// libcurl's write callback for `MemorySink`: a plain function, so that it
/// carries no actor isolation into libcurl's calling thread.
func memorySinkWrite(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return 0 }
    let sink = Unmanaged<MemorySink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    if Int64(sink.bytes.count + length) > sink.limit {
        sink.overflowed = true
        return 0  // makes libcurl stop with CURLE_WRITE_ERROR
    }
    data.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: pointer, count: length))
    }
    return length
}

/// libcurl's header callback for `MemorySink`: one header line per call.
func memorySinkHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return 0 }
    let length = size * count
    return Unmanaged<MemorySink>.fromOpaque(context).takeUnretainedValue().headers.add(line: UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}
