import CCurl
import CLinux
import Foundation
import MediaCacheFolder
import MediaInterfaces
import MediaModel

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
    /// The rate's window, how often progress is published and the held
    /// ranges recorded: the cache's clock.
    let clock: any MediaClock
    /// What the entry holds and who reads it (shared with readers).
    let entry: PartialEntry
    /// The main transfer fetches the first gap on and completes the entry;
    /// a ranged one (started by a reader) fills from its start until it
    /// meets held bytes or another transfer, then ends.
    let isMain: Bool
    /// Called on the transfer thread; must not block.
    let publish: @Sendable (DownloadProgress) -> Void
    /// Called once, on the transfer thread, with the final outcome.
    let complete: @Sendable (Result<String, CacheError>) -> Void
    /// Records what the response said, so a crash still leaves validators.
    let recordHeaders: @Sendable (_ total: Int64?, _ etag: String?, _ lastModified: String?, _ contentType: String?) -> Void
    /// Records which ranges the part file holds (nil: from 0 to its size).
    let recordRanges: @Sendable (HeldRanges?) -> Void

    // Attempt state.
    var easyHandle: UnsafeMutableRawPointer?
    var fd: Int32 = -1
    /// Where this attempt's body starts in the file.
    var offset: Int64 = 0
    var received: Int64 = 0
    var expectedTotal: Int64?
    var headers = ResponseHeaders()
    var bodyStarted = false
    var writeErrno: Int32 = 0
    var abortReason: AbortReason?
    var attempts = 0
    var resumes = 0
    /// libcurl's error text for this attempt: CURLOPT_ERRORBUFFER keeps the
    /// pointer until the handle is cleaned up, so it is memory this job owns
    /// (an array's buffer is valid only inside its closure).
    let errorBuffer: UnsafeMutableBufferPointer<CChar> = {
        let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0)
        return buffer
    }()
    /// The error text libcurl left, if any.
    var errorText: String {
        String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// Headers a page's site asks for ("Name: value" lines), sent to this
    /// URL's host only (libcurl keeps cookies and credentials from other
    /// hosts on a redirect).
    var extraHeaders: [String] = []
    var rangeText: [CChar]?
    /// Where this attempt's asked-for bytes end, when held bytes lie ahead:
    /// the request names the gap only, so nothing held is sent again.
    var rangeEnd: Int64?
    var urlText: [CChar]
    /// Nil: never (a clock may stand at 0).
    var lastPublish: Double?
    var rateWindowStart: (time: Double, bytes: Int64)?
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
    /// This attempt's claim on the entry.
    var segment: PartialEntry.Segment?
    /// Main transfer: its ranged helpers. Ranged: the main transfer.
    var rangeJobs: [TransferJob] = []
    weak var main: TransferJob?
    /// Ranges written out of order: the index must list them.
    var wroteOutOfOrder = false
    var lastRangesRecord: Double?

    enum AbortReason: Equatable {
        case tooLarge
        /// The body came encoded (gzip, br): not the file's own bytes.
        case encoded(String)
        case restartFromZero
        case tooLong
        case cancelled
        /// Reached bytes the entry holds, or another transfer's start.
        case reachedHeld
        /// A ranged request answered with something other than that range.
        case rangeRefused
        /// A whole answer with no length: a live stream, not a file.
        case liveStream
        /// An HTML page, not media (yt-dlp may find the media in it).
        case webPage
        /// An XML or JSON document, not media: an API's answer (a Subsonic
        /// server's error comes as HTTP 200 with one).
        case document(String)
    }

    init(
        url: URL, partPath: String, dataPath: String, mode: Mode, configuration: CacheConfiguration, clock: any MediaClock,
        entry: PartialEntry, isMain: Bool = true,
        publish: @escaping @Sendable (DownloadProgress) -> Void,
        recordHeaders: @escaping @Sendable (Int64?, String?, String?, String?) -> Void,
        recordRanges: @escaping @Sendable (HeldRanges?) -> Void,
        complete: @escaping @Sendable (Result<String, CacheError>) -> Void
    ) {
        self.url = url
        self.partPath = partPath
        self.dataPath = dataPath
        self.mode = mode
        self.configuration = configuration
        self.clock = clock
        self.entry = entry
        self.isMain = isMain
        self.publish = publish
        self.recordHeaders = recordHeaders
        self.recordRanges = recordRanges
        self.complete = complete
        // Signed for the wire only (`RequestSigning`): the entry stays keyed by `url`.
        self.urlText = Array(RequestSigning.signed(url).absoluteString.utf8CString)
    }

    /// A ranged helper that fetches from `start` for a reader.
    func makeRangeJob(at start: Int64) -> TransferJob {
        let job = TransferJob(
            url: url, partPath: partPath, dataPath: dataPath, mode: .fetch, configuration: configuration, clock: clock,
            entry: entry, isMain: false, publish: { _ in }, recordHeaders: { _, _, _, _ in }, recordRanges: { _ in },
            complete: { _ in }
        )
        job.offset = start
        job.resumeValidator = resumeValidator
        job.extraHeaders = extraHeaders
        job.main = self
        return job
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let requestHeaders { curl_slist_free_all(requestHeaders) }
        errorBuffer.deallocate()
    }

    var host: String { url.host ?? url.absoluteString.redactingUserinfo }

    // MARK: - Callbacks (transfer thread)

    /// Called with each chunk of the body; returns false to abort.
    func handleBody(_ bytes: UnsafeRawBufferPointer, handle: UnsafeMutableRawPointer) -> Bool {
        // Checked before writing, not only at libcurl's next progress call: a
        // helper cancelled because the file changed must not write old bytes.
        if cancelled {
            abortReason = .cancelled
            return false
        }
        if !bodyStarted {
            bodyStarted = true
            guard startBody(handle: handle) else { return false }
        }
        let position = offset + received
        if let expectedTotal, position + Int64(bytes.count) > expectedTotal {
            abortReason = .tooLong
            return false
        }
        if position + Int64(bytes.count) > configuration.maximumSize {
            abortReason = .tooLarge
            return false
        }
        // Stop where held bytes (or another transfer) begin: nothing twice.
        // One look at the entry per chunk tells that and whether a reader is open.
        var take = bytes.count
        var readers = false
        if let segment {
            let limits = entry.limits(for: segment)
            readers = limits.readers
            if position + Int64(take) > limits.stop { take = Int(max(0, limits.stop - position)) }
        }
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<take]))
        received += Int64(take)
        if take < bytes.count {
            abortReason = .reachedHeld
            _ = flushPending()
            return false
        }
        // Gathering 1 MiB per write(2) saves most of the kernel's per-call
        // page-cache work. While a reader is open each chunk is written at
        // once, so that what it may wait for is there (and the segment's
        // position, which readers and ranged requests go by, stays true).
        if pending.count >= Self.writeChunk || readers { return flushPending() }
        return true
    }

    static let writeChunk = 1 << 20

    /// Writes the gathered bytes to the part file at their offset; false
    /// (with `writeErrno`) on failure.
    func flushPending() -> Bool {
        guard !pending.isEmpty else { return true }
        let start = offset + received - Int64(pending.count)
        var written = 0
        let ok = pending.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let result = pwrite(fd, raw.baseAddress! + written, raw.count - written, off_t(start + Int64(written)))
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
        if written > 0, let segment { entry.didWrite(start..<start + Int64(written), by: segment) }
        guard ok else { return false }
        // Start writeback of each finished 8 MiB stretch now, without waiting,
        // so that the fsync before the final rename has little left to flush.
        let end = offset + received
        if end - flushedUpTo >= 8 << 20 {
            _ = mp_start_writeback(fd, off_t(flushedUpTo), off_t(end - flushedUpTo))
            flushedUpTo = end
        }
        if (main ?? self).wroteOutOfOrder, clock.now - (lastRangesRecord ?? -.infinity) >= 2 { recordHeldRanges() }
        return true
    }

    /// Records the held ranges in the index, after the bytes are on disk, so
    /// that a crash never lists bytes the file lacks.
    func recordHeldRanges() {
        lastRangesRecord = clock.now
        let owner = main ?? self
        if fd >= 0 { _ = fdatasync(fd) }
        owner.recordRanges(owner.wroteOutOfOrder ? entry.heldNow : nil)
    }

    /// The first body bytes have arrived: decide from the status whether they
    /// continue the partial file or replace it.
    private func startBody(handle: UnsafeMutableRawPointer) -> Bool {
        var status = 0
        mp_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let range = headers["content-range"].flatMap(Self.parseContentRange)
        // Asked for as `identity`; a server that compresses anyway sends
        // bytes that are not the file (stored, they were listed "cached",
        // then "not a media file").
        if let encoding = headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased(),
           !encoding.isEmpty, encoding != "identity" {
            abortReason = .encoded(encoding)
            return false
        }
        guard isMain else {
            // A ranged helper is useful only for exactly the range it asked.
            guard status == 206, let range, range.start == offset else {
                abortReason = .rangeRefused
                return false
            }
            expectedTotal = range.total
            return true
        }
        if status == 206, let range {
            if range.start != offset {
                abortReason = .restartFromZero
                return false
            }
            expectedTotal = range.total
        } else {
            // A 200 to a ranged request: the server ignored Range, or If-Range
            // said the entity changed. Start over with what it sends.
            if offset > 0 || entry.heldNow.byteCount > 0 {
                if ftruncate(fd, 0) != 0 {
                    writeErrno = errno
                    return false
                }
                // The helpers' gathered bytes are of the old entity: dropped,
                // never written into the new one.
                for job in rangeJobs {
                    job.cancelled = true
                    job.pending.removeAll()
                }
                entry.reset()
                wroteOutOfOrder = false
                recordRanges(nil)
                offset = 0
            }
            rangeEnd = nil  // the whole entity comes
            // A web page is not downloaded as media: nothing is kept.
            if status == 200, Self.isWebPage(contentType: headers["content-type"]) {
                abortReason = .webPage
                return false
            }
            // Nor is an API's document: never kept as the media.
            if status == 200, let type = Self.documentType(contentType: headers["content-type"]) {
                abortReason = .document(type)
                return false
            }
            expectedTotal = headers["content-length"].flatMap { Int64($0) }
            // No length (or a radio server's icy- headers): a stream with no
            // end, played live and never kept.
            if status == 200, expectedTotal == nil || headers["icy-metaint"] != nil {
                abortReason = .liveStream
                return false
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
        let ranges = headers["accept-ranges"]?.lowercased() != "none" && resumeValidator != nil
        entry.setTotal(expectedTotal, rangesAllowed: ranges)
        publishProgress(force: true)
        return true
    }

    /// HTML or XHTML by its Content-Type: a page, never a media file.
    static func isWebPage(contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "text/html" || type == "application/xhtml+xml"
    }

    /// The type of an XML or JSON answer (what an API sends, an error
    /// included), nil for anything else.
    static func documentType(contentType: String?) -> String? {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        return ["text/xml", "application/xml", "application/json", "text/json"].contains(type) ? type : nil
    }

    func publishProgress(force: Bool = false) {
        let now = clock.now
        let bytes = offset + received
        if let window = rateWindowStart {
            if now - window.time >= 0.25 {
                // Rate over the last window, smoothed so the display does not flicker.
                let instant = Double(bytes - window.bytes) / (now - window.time)
                bytesPerSecond = bytesPerSecond == 0 ? instant : bytesPerSecond * 0.6 + instant * 0.4
                rateWindowStart = (now, bytes)
            }
        } else {
            rateWindowStart = (now, bytes)
        }
        guard force || now - (lastPublish ?? -.infinity) >= 0.08 else { return }
        lastPublish = now
        guard isMain else { return }
        entry.setRate(bytesPerSecond)
        // Ranged helpers write too: count what the entry holds.
        let held = wroteOutOfOrder ? entry.heldNow.byteCount : bytes
        publish(DownloadProgress(
            phase: bodyStarted ? .downloading : .connecting,
            received: held, total: expectedTotal, bytesPerSecond: bytesPerSecond
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
    return job.headers.add(line: UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
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
