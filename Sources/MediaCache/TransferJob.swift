import CCurl
import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One download of one cache entry, from the moment its lock is held until it
/// is verified in place or has failed. It lives on the transfer thread: every
/// method and field is touched by that thread only (the callbacks included),
/// except `cancelled`, which is atomic in effect (a word read by the thread).
final class TransferJob: @unchecked Sendable {
    enum Mode {
        /// Fetch the entry, resuming a `.part` file when the validators allow.
        case fetch
        /// Ask whether the cached file is still current (If-None-Match /
        /// If-Modified-Since); download the new one only if it changed.
        case revalidate(etag: String?, lastModified: String?)
    }

    let url: URL
    let partPath: String
    let dataPath: String
    let mode: Mode
    let configuration: CacheConfiguration
    /// Called on the transfer thread; must not block.
    let publish: @Sendable (DownloadProgress) -> Void
    /// Called once, on the transfer thread, with the final outcome.
    let complete: @Sendable (Result<String, CacheError>) -> Void
    /// Records what the response said, so a crash still leaves validators.
    let recordHeaders: @Sendable (_ total: Int64?, _ etag: String?, _ lastModified: String?, _ contentType: String?) -> Void

    // Attempt state.
    var easyHandle: UnsafeMutableRawPointer?
    var fd: Int32 = -1
    var offset: Int64 = 0
    var received: Int64 = 0
    var expectedTotal: Int64?
    var headers: [String: String] = [:]
    var bodyStarted = false
    var writeErrno: Int32 = 0
    var abortReason: AbortReason?
    var attempts = 0
    var resumes = 0
    var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    var requestHeaders: UnsafeMutablePointer<curl_slist>?
    var rangeText: [CChar]?
    var urlText: [CChar]
    var lastPublish: Double = 0
    var rateWindowStart: (time: Double, bytes: Int64) = (0, 0)
    var bytesPerSecond: Double = 0
    nonisolated(unsafe) var cancelled = false
    /// Strong validator for If-Range: the last response's ETag, else its
    /// Last-Modified. Without one a partial file cannot be resumed safely.
    var resumeValidator: String?
    /// The full size as last recorded, for a part file that may be complete.
    var knownTotal: Int64?
    /// Set by a 304 answer to a revalidation.
    var notModified = false
    var finalSize: Int64?
    /// Bytes handed to the kernel's writeback so far (see flushPending).
    var flushedUpTo: Int64 = 0
    /// Body bytes received but not yet written (see handleBody).
    var pending: [UInt8] = []

    enum AbortReason: Equatable {
        case tooLarge
        case restartFromZero
        case tooLong
        case cancelled
    }

    init(
        url: URL, partPath: String, dataPath: String, mode: Mode, configuration: CacheConfiguration,
        publish: @escaping @Sendable (DownloadProgress) -> Void,
        recordHeaders: @escaping @Sendable (Int64?, String?, String?, String?) -> Void,
        complete: @escaping @Sendable (Result<String, CacheError>) -> Void
    ) {
        self.url = url
        self.partPath = partPath
        self.dataPath = dataPath
        self.mode = mode
        self.configuration = configuration
        self.publish = publish
        self.recordHeaders = recordHeaders
        self.complete = complete
        self.urlText = Array(url.absoluteString.utf8CString)
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let requestHeaders { curl_slist_free_all(requestHeaders) }
    }

    var host: String { url.host ?? url.absoluteString }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    // MARK: - Callbacks (transfer thread)

    func handleHeaderLine(_ line: String) {
        if line.hasPrefix("HTTP/") {
            // A new response (after a redirect or a 100 Continue): forget the last one's headers.
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headers[name] = value
    }

    /// Called with each chunk of the body; returns false to abort.
    func handleBody(_ bytes: UnsafeRawBufferPointer, handle: UnsafeMutableRawPointer) -> Bool {
        if !bodyStarted {
            bodyStarted = true
            guard startBody(handle: handle) else { return false }
        }
        if let expectedTotal, offset + received + Int64(bytes.count) > expectedTotal {
            abortReason = .tooLong
            return false
        }
        if offset + received + Int64(bytes.count) > configuration.maximumSize {
            abortReason = .tooLarge
            return false
        }
        // libcurl hands over at most 16 KiB a call; gathering 1 MiB per
        // write(2) saves most of the kernel's per-call page-cache work.
        pending.append(contentsOf: bytes)
        received += Int64(bytes.count)
        if pending.count >= Self.writeChunk { return flushPending() }
        return true
    }

    static let writeChunk = 1 << 20

    /// Writes the gathered bytes to the part file; false (with `writeErrno`) on failure.
    func flushPending() -> Bool {
        var written = 0
        let ok = pending.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let result = write(fd, raw.baseAddress! + written, raw.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    writeErrno = errno
                    return false
                }
                written += result
            }
            return true
        }
        pending.removeAll(keepingCapacity: true)
        guard ok else { return false }
        // Start writeback of each finished 8 MiB stretch now, without waiting,
        // so that the fsync before the final rename has little left to flush.
        let size = offset + received  // everything received is now in the file
        if size - flushedUpTo >= 8 << 20 {
            _ = mp_start_writeback(fd, off_t(flushedUpTo), off_t(size - flushedUpTo))
            flushedUpTo = size
        }
        return true
    }

    /// The first body bytes have arrived: decide from the status whether they
    /// continue the partial file or replace it.
    private func startBody(handle: UnsafeMutableRawPointer) -> Bool {
        var status = 0
        mp_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if status == 206, let range = headers["content-range"], let parsed = Self.parseContentRange(range) {
            if parsed.start != offset {
                abortReason = .restartFromZero
                return false
            }
            expectedTotal = parsed.total
        } else {
            // A 200 to a ranged request: the server ignored Range, or If-Range
            // said the entity changed. Start over with what it sends.
            if offset > 0 {
                if ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 {
                    writeErrno = errno
                    return false
                }
                offset = 0
            }
            expectedTotal = headers["content-length"].flatMap { Int64($0) }
            if headers["content-encoding"].map({ $0 != "identity" }) == true {
                expectedTotal = nil  // the length is of the encoded body
            }
        }
        if let total = expectedTotal, total > configuration.maximumSize {
            abortReason = .tooLarge
            return false
        }
        let etag = headers["etag"].flatMap { $0.hasPrefix("W/") ? nil : $0 }
        resumeValidator = etag ?? headers["last-modified"]
        knownTotal = expectedTotal
        recordHeaders(expectedTotal, etag, headers["last-modified"], headers["content-type"])
        publishProgress(force: true)
        return true
    }

    func publishProgress(force: Bool = false) {
        let now = Self.now()
        let bytes = offset + received
        if rateWindowStart.time == 0 {
            rateWindowStart = (now, bytes)
        } else if now - rateWindowStart.time >= 0.25 {
            // Rate over the last window, smoothed so the display does not flicker.
            let instant = Double(bytes - rateWindowStart.bytes) / (now - rateWindowStart.time)
            bytesPerSecond = bytesPerSecond == 0 ? instant : bytesPerSecond * 0.6 + instant * 0.4
            rateWindowStart = (now, bytes)
        }
        guard force || now - lastPublish >= 0.08 else { return }
        lastPublish = now
        publish(DownloadProgress(
            phase: bodyStarted ? .downloading : .connecting,
            received: bytes, total: expectedTotal, bytesPerSecond: bytesPerSecond
        ))
    }

    /// "bytes 100-199/1000" → (100, 1000); the total may be "*".
    static func parseContentRange(_ text: String) -> (start: Int64, total: Int64?)? {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bytes" else { return nil }
        let rangeAndTotal = parts[1].split(separator: "/", maxSplits: 1)
        guard rangeAndTotal.count == 2, let dash = rangeAndTotal[0].firstIndex(of: "-"),
              let start = Int64(rangeAndTotal[0][..<dash]) else { return nil }
        return (start, Int64(rangeAndTotal[1]))
    }
}

// libcurl callbacks: plain functions, so no actor isolation reaches libcurl's
// thread. `context` is the unretained TransferJob.

func transferWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let job = Unmanaged<TransferJob>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    guard let handle = job.easyHandle else { return 0 }
    return job.handleBody(UnsafeRawBufferPointer(start: data, count: length), handle: handle) ? length : 0
}

func transferHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let job = Unmanaged<TransferJob>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    job.handleHeaderLine(line)
    return length
}

func transferProgress(
    _ context: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloadNow: curl_off_t,
    _ uploadTotal: curl_off_t, _ uploadNow: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    let job = Unmanaged<TransferJob>.fromOpaque(context).takeUnretainedValue()
    if job.cancelled {
        job.abortReason = .cancelled
        return 1
    }
    job.publishProgress()
    return 0
}
