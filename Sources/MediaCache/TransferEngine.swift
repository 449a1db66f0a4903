import CCurl
import Foundation
import MediaCacheFolder
import MediaInterfaces
import MediaModel

#if canImport(Glibc)
import Glibc
#endif

/// Runs every transfer of a process on one thread with libcurl's multi
/// interface: many transfers at once, connections reused between them, and
/// no thread of Swift's cooperative pool ever blocked.
///
/// When nothing is in flight the thread sleeps on a condition (no CPU);
/// while transfers run it sleeps in `curl_multi_poll`, which new work
/// interrupts with `curl_multi_wakeup`. Retries wait on the engine's clock:
/// on the condition until they are due, or, while others transfer, for an
/// alarm that wakes the poll.
final class TransferEngine: @unchecked Sendable {
    let clock: any MediaClock

    // Guarded by `condition`.
    private let condition = NSCondition()
    /// A `wake` not yet seen by the thread.
    private var wakePending = false
    private var incoming: [TransferJob] = []
    private var threadStarted = false

    // Transfer thread only.
    private let multi: UnsafeMutableRawPointer
    private var active: [UnsafeMutableRawPointer: TransferJob] = [:]
    private var scheduled: [(due: Double, job: TransferJob)] = []
    /// Wakes the poll when the earliest scheduled job is due.
    private var dueAlarm: (due: Double, alarm: ClockAlarm)?
    /// Main transfers with no gap left to fetch while their ranged helpers
    /// run; a helper's end wakes them.
    private var parked: [TransferJob] = []

    /// The engine of every cache on the system clock.
    static let shared = TransferEngine(clock: SystemClock.shared)

    /// The engine for a cache on `clock`: the shared one on the system
    /// clock, else one of its own (a test's clock moves its retries alone).
    static func serving(_ clock: any MediaClock) -> TransferEngine {
        clock is SystemClock ? shared : TransferEngine(clock: clock)
    }

    private init(clock: any MediaClock) {
        self.clock = clock
        _ = CurlGlobal.initialized
        multi = curl_multi_init()
        // Reuse connections to the same host across the transfers of a session.
        _ = mp_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 8)
    }

    func submit(_ job: TransferJob) {
        condition.lock()
        incoming.append(job)
        if !threadStarted {
            threadStarted = true
            let thread = Thread { [self] in run() }
            thread.name = "mediaplay.transfers"
            thread.start()
        }
        condition.signal()
        condition.unlock()
        curl_multi_wakeup(multi)
    }

    /// Interrupts the poll, or the wait for a retry, so that the thread sees
    /// a cancellation or a reader's request promptly.
    func wake() {
        condition.withLock {
            // Kept until the thread looks, so a wake between its loop's top
            // and its wait is not lost.
            wakePending = true
            condition.signal()
        }
        curl_multi_wakeup(multi)
    }

    private func run() {
        while true {
            condition.lock()
            while incoming.isEmpty && active.isEmpty && scheduled.isEmpty {
                condition.wait()
            }
            let newJobs = incoming
            incoming.removeAll()
            wakePending = false
            condition.unlock()

            for job in newJobs {
                job.entry.wakeTransfers = { [weak self] in self?.wake() }
                start(job)
            }
            startRequestedRanges()
            let now = clock.now
            let due = scheduled.filter { $0.due <= now }.map(\.job)
            scheduled.removeAll { $0.due <= now }
            for job in due { start(job) }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let result = message.pointee.data.result
                finish(easy, result: result)
            }

            // Sleep until a socket is ready, a curl timer fires, new work
            // arrives (curl_multi_wakeup) or a scheduled retry is due.
            let next = scheduled.map(\.due).min()
            if active.isEmpty {
                setDueAlarm(nil)
                if let next {
                    // Only retries pending: wait on the condition so submit() wakes us.
                    condition.lock()
                    if incoming.isEmpty && !wakePending { _ = clock.wait(on: condition, until: next) }
                    condition.unlock()
                }
            } else if let next, next <= clock.now {
                setDueAlarm(nil)
                curl_multi_poll(multi, nil, 0, 0, nil)
            } else {
                setDueAlarm(next)
                curl_multi_poll(multi, nil, 0, 1000, nil)
            }
        }
    }

    /// Keeps one alarm set for `due` (none for nil), which wakes the poll.
    private func setDueAlarm(_ due: Double?) {
        guard dueAlarm?.due != due else { return }
        dueAlarm?.alarm.cancel()
        dueAlarm = due.map { ($0, clock.alarm(at: $0) { [weak self] in self?.wake() }) }
    }

    // MARK: - Ranged helpers

    /// Starts a ranged transfer for each offset a reader asked for (the
    /// oldest helper of an entry gives way when it has too many).
    private func startRequestedRanges() {
        // A parked main is in no curl handle, so no callback sees its cancel.
        // Unparked first: ending its helpers would otherwise reschedule it.
        for main in parked where main.cancelled {
            parked.removeAll { $0 === main }
            conclude(main, .failure(.cancelled))
        }
        var mains = active.values.filter(\.isMain)
        mains += parked
        mains += scheduled.map(\.job).filter(\.isMain)
        for main in mains {
            for offset in main.entry.takeRequests() {
                guard !main.cancelled, main.entry.needsRange(at: offset) else { continue }
                if main.rangeJobs.count >= PartialEntry.maximumRangeTransfers {
                    abandon(main.rangeJobs.removeFirst())
                }
                if !main.wroteOutOfOrder {
                    // Before any byte lands out of order, the index must stop
                    // reading the part file as "everything up to its size".
                    main.wroteOutOfOrder = true
                    main.recordRanges(main.entry.heldNow)
                }
                let job = main.makeRangeJob(at: offset)
                main.rangeJobs.append(job)
                start(job)
            }
        }
    }

    /// Ends a ranged helper now (its bytes so far stay held).
    private func abandon(_ job: TransferJob) {
        if let easy = job.easyHandle {
            active.removeValue(forKey: easy)
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
            job.easyHandle = nil
            if job.fd >= 0, !job.pending.isEmpty { _ = job.flushPending() }
        }
        scheduled.removeAll { $0.job === job }
        endRange(job)
    }

    /// A ranged helper is over: its claim ends and a parked main moves on.
    private func endRange(_ job: TransferJob) {
        if let segment = job.segment {
            job.entry.end(segment)
            job.segment = nil
        }
        if job.fd >= 0 {
            close(job.fd)
            job.fd = -1
        }
        guard let main = job.main else { return }
        main.rangeJobs.removeAll { $0 === job }
        main.recordHeldRanges()
        if let index = parked.firstIndex(where: { $0 === main }) {
            parked.remove(at: index)
            scheduled.append((clock.now, main))
        }
    }

    // MARK: - One attempt

    private func start(_ job: TransferJob) {
        if job.cancelled {
            if job.isMain { conclude(job, .failure(.cancelled)) } else { endRange(job) }
            return
        }
        if job.isMain { job.publish(DownloadProgress(phase: .connecting, received: job.entry.heldNow.byteCount, total: nil, bytesPerSecond: 0)) }
        guard prepareFile(job) else { return }
        guard let easy = curl_easy_init() else {
            conclude(job, .failure(.network("libcurl could not start a transfer")))
            return
        }
        job.easyHandle = easy
        job.received = 0
        job.pending.removeAll(keepingCapacity: true)
        job.bodyStarted = false
        job.headers.removeAll()
        job.writeErrno = 0
        job.abortReason = nil
        job.errorBuffer.update(repeating: 0)
        if let headers = job.requestHeaders {
            curl_slist_free_all(headers)
            job.requestHeaders = nil
        }
        job.segment = job.entry.begin(at: job.offset)

        // No Accept-Encoding: media bytes arrive as stored, so lengths and ranges hold.
        CurlOptions.applySafeDefaults(easy)
        job.headers.stayOn = ResponseHeaders.origin(for: job.url)
        _ = mp_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, job.configuration.connectTimeout)
        _ = mp_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, job.configuration.lowSpeedTime)
        _ = mp_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, job.configuration.lowSpeedLimit)
        if let deadline = job.configuration.deadline { _ = mp_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT, deadline) }
        _ = mp_curl_easy_setopt_long(easy, CURLOPT_FAILONERROR, 1)
        // Larger receive buffer: fewer callbacks and write(2) calls per MiB.
        _ = mp_curl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 512 * 1024)
        _ = mp_curl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(job.configuration.maximumSize))
        job.urlText.withUnsafeBufferPointer { _ = mp_curl_easy_setopt_string(easy, CURLOPT_URL, $0.baseAddress) }
        _ = mp_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, job.errorBuffer.baseAddress)

        let context = Unmanaged.passUnretained(job).toOpaque()
        _ = mp_curl_easy_setopt_write_function(easy, transferWrite)
        _ = mp_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = mp_curl_easy_setopt_header_function(easy, transferHeader)
        _ = mp_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = mp_curl_easy_setopt_xferinfo_function(easy, transferProgress)
        _ = mp_curl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, context)
        _ = mp_curl_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)

        // The file's own bytes, never a compressed form of them.
        var headerLines: [String] = ["Accept-Encoding: identity"]
        switch job.mode {
        case .fetch:
            // Up to the next held bytes only: an open-ended range would have
            // the server send them again, to be thrown away when they arrive.
            // Only with the total known, which tells a whole file from a gap.
            job.rangeEnd = job.entry.knowsTotal || job.knownTotal != nil ? job.entry.heldNow.nextStart(atOrAfter: job.offset + 1) : nil
            if job.offset > 0 || job.rangeEnd != nil, let validator = job.resumeValidator {
                // Resume only if the entity is unchanged; otherwise the server sends it whole (200).
                let last = job.rangeEnd.map { String($0 - 1) } ?? ""
                job.rangeText = Array("\(job.offset)-\(last)".utf8CString)
                job.rangeText!.withUnsafeBufferPointer { _ = mp_curl_easy_setopt_string(easy, CURLOPT_RANGE, $0.baseAddress) }
                headerLines.append("If-Range: \(validator)")
            } else {
                job.rangeEnd = nil
            }
        case let .revalidate(etag, lastModified):
            if let etag { headerLines.append("If-None-Match: \(etag)") }
            if let lastModified { headerLines.append("If-Modified-Since: \(lastModified)") }
        }
        headerLines += job.extraHeaders
        for line in headerLines { job.requestHeaders = curl_slist_append(job.requestHeaders, line) }
        if let headers = job.requestHeaders { _ = mp_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers) }

        active[easy] = job
        curl_multi_add_handle(multi, easy)
    }

    /// Opens the `.part` file and decides where this attempt starts: the
    /// first gap for the main transfer (which parks when ranged helpers
    /// have every gap, and completes the entry when nothing is missing),
    /// where it stopped for a ranged helper.
    private func prepareFile(_ job: TransferJob) -> Bool {
        if job.fd < 0 {
            job.fd = EntryFile.open(job.partPath, O_WRONLY | O_CREAT)
            if job.fd < 0 {
                if job.isMain { conclude(job, .failure(Self.ioError(errno, path: job.partPath))) } else { endRange(job) }
                return false
            }
        }
        guard job.isMain else {
            job.offset += job.received
            if job.entry.isHeld(job.offset) {
                endRange(job)  // the main transfer got there first
                return false
            }
            return true
        }
        var start: Int64 = 0
        if case .revalidate = job.mode {
            _ = ftruncate(job.fd, 0)
        } else {
            if job.resumeValidator == nil && job.entry.heldNow.byteCount > 0 {
                // Cannot resume safely: start over.
                _ = ftruncate(job.fd, 0)
                job.entry.reset()
            }
            if job.entry.isWhole, let total = job.entry.heldNow.ranges.last?.upperBound {
                finalize(job, size: total)
                return false
            }
            guard let gap = job.entry.nextGap() else {
                if !job.rangeJobs.isEmpty {
                    parked.append(job)
                    return false
                }
                start = job.entry.heldNow.ranges.last?.upperBound ?? 0
                job.offset = start
                job.flushedUpTo = start
                return true
            }
            start = gap
        }
        job.offset = start
        job.flushedUpTo = start
        return true
    }

    private func finish(_ easy: UnsafeMutableRawPointer, result: CURLcode) {
        guard let job = active.removeValue(forKey: easy) else { return }
        var status = 0
        mp_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        let detail = job.errorText
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        job.easyHandle = nil

        // Whatever the outcome, the bytes received so far belong in the part file.
        let flushed = job.fd < 0 || job.pending.isEmpty || job.flushPending()
        if let segment = job.segment {
            job.entry.end(segment)
            job.segment = nil
        }
        if !job.isMain {
            finishRange(job, result: result, flushed: flushed)
            return
        }
        if !flushed, result != CURLE_WRITE_ERROR {
            conclude(job, .failure(Self.ioError(job.writeErrno, path: job.partPath)))
            return
        }
        if job.cancelled || job.abortReason == .cancelled {
            conclude(job, .failure(.cancelled))
            return
        }
        // A try that brought a real part of the file, which the server can
        // resume (a validator for If-Range), is resumed at once without
        // counting; anything less (a trickle, a drop after a few bytes, a
        // server whose next try starts from byte 0) counts as a try, so a
        // failing server is given up on after `attempts`.
        let madeProgress = job.received >= Self.resumableProgress && job.resumeValidator != nil

        switch result {
        case CURLE_OK:
            if case .revalidate = job.mode, status == 304 {
                job.notModified = true
                conclude(job, .success(job.dataPath))
                return
            }
            let end = job.offset + job.received
            guard let total = job.expectedTotal else {
                if end == job.rangeEnd {
                    scheduled.append((clock.now, job))  // a gap filled: on to the next
                } else {
                    finalize(job, size: end)  // no length given: the body's end is the end
                }
                return
            }
            if end < total, end != job.rangeEnd {
                retry(job, reason: "connection closed early", resumable: madeProgress,
                      final: .wrongLength(expected: total, received: end))
            } else if job.entry.isWhole {
                finalize(job, size: total)
            } else {
                scheduled.append((clock.now, job))  // on to the next gap
            }

        case CURLE_HTTP_RETURNED_ERROR:
            if status == 416 && job.offset > 0, let known = job.knownTotal, known == job.offset, job.entry.heldNow.covers(total: known) {
                // The part file already holds everything: it only needs verifying and moving.
                finalize(job, size: job.offset)
            } else if status == 416 {
                startOver(job)
                job.resumeValidator = nil
                retry(job, reason: "range not satisfiable", resumable: false, final: .http(status: status, host: job.host))
            } else if status >= 500 || status == 408 || status == 429 {
                retry(job, reason: "HTTP \(status)", resumable: false, final: .http(status: status, host: job.host))
            } else {
                conclude(job, .failure(.http(status: status, host: job.host)))
            }

        case CURLE_WRITE_ERROR where job.headers.refusedRedirect != nil:
            _ = unlink(job.partPath)
            conclude(job, .failure(.network(ResponseHeaders.redirectRefused(from: job.host, to: job.headers.refusedRedirect ?? ""))))
        case CURLE_WRITE_ERROR:
            switch job.abortReason {
            case .tooLarge?:
                _ = unlink(job.partPath)
                conclude(job, .failure(.tooLarge(limit: job.configuration.maximumSize)))
            case let .encoded(encoding)?:
                _ = unlink(job.partPath)
                conclude(job, .failure(.unsupported("\(job.host) sent the file compressed (Content-Encoding: \(encoding)) though asked for it as is; it cannot be kept as the file")))
            case .reachedHeld?:
                scheduled.append((clock.now, job))  // on to the next gap
            case .rangeRefused?:
                conclude(job, .failure(.network("unexpected answer to a range request (\(job.host))")))
            case .restartFromZero?:
                startOver(job)
                job.resumeValidator = nil
                retry(job, reason: "server resumed at the wrong offset", resumable: true, final: .network("the server cannot resume this file"))
            case .tooLong?:
                startOver(job)
                retry(job, reason: "more bytes than announced", resumable: false,
                      final: .wrongLength(expected: job.expectedTotal ?? 0, received: (job.expectedTotal ?? 0) + 1))
            case .cancelled?:
                conclude(job, .failure(.cancelled))
            case .liveStream?:
                _ = unlink(job.partPath)
                conclude(job, .failure(.liveStream))
            case .webPage?:
                _ = unlink(job.partPath)
                conclude(job, .failure(.webPage))
            case let .document(type)?:
                _ = unlink(job.partPath)
                conclude(job, .failure(.document(type)))
            case nil:
                conclude(job, .failure(Self.ioError(job.writeErrno, path: job.partPath)))
            }

        case CURLE_FILESIZE_EXCEEDED:
            _ = unlink(job.partPath)
            conclude(job, .failure(.tooLarge(limit: job.configuration.maximumSize)))

        case CURLE_TOO_MANY_REDIRECTS:
            conclude(job, .failure(.redirectLoop(host: job.host)))

        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_OPERATION_TIMEDOUT,
             CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            let text = detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
            retry(job, reason: text, resumable: madeProgress, final: .network("\(text) (\(job.host))"))

        default:
            let text = detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
            conclude(job, .failure(.network("\(text) (\(job.host))")))
        }
    }

    /// What a ranged helper's end means: a reset that made progress resumes
    /// it; anything else ends it (the main transfer fills what it missed).
    private func finishRange(_ job: TransferJob, result: CURLcode, flushed: Bool) {
        if job.abortReason == .rangeRefused { job.entry.refuseRanges() }
        let resumable = [CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_OPERATION_TIMEDOUT].contains(result)
        if flushed, !job.cancelled, resumable, job.received > 0, job.resumes < job.configuration.maximumResumes {
            job.resumes += 1
            scheduled.append((clock.now, job))
            return
        }
        endRange(job)
    }

    /// The part file cannot be trusted (the server resumed wrongly, or
    /// sent more than it announced): empty it and fetch from 0.
    private func startOver(_ job: TransferJob) {
        for helper in job.rangeJobs { abandon(helper) }
        _ = ftruncate(job.fd, 0)
        job.entry.reset()
        job.wroteOutOfOrder = false
        job.recordRanges(nil)
        job.offset = 0
        job.received = 0
    }

    /// Bytes a try must bring to be resumed without counting as a try.
    static let resumableProgress: Int64 = 64 << 10

    /// Tries again: at once when the last attempt made progress (a reset
    /// mid-body resumes), else after a doubling pause, up to the attempt limit.
    private func retry(_ job: TransferJob, reason: String, resumable: Bool, final: CacheError) {
        let delay: Double
        if resumable && job.resumes < job.configuration.maximumResumes {
            job.resumes += 1
            delay = 0
        } else {
            job.attempts += 1
            if job.attempts >= job.configuration.attempts {
                // Why, and that it was tried: "…; gave up after 3 tries".
                if case let .network(message) = final {
                    conclude(job, .failure(.network("\(message); gave up after \(job.attempts) tries")))
                } else {
                    conclude(job, .failure(final))
                }
                return
            }
            delay = job.configuration.retryDelay * pow(2, Double(job.attempts - 1))
        }
        job.publish(DownloadProgress(
            phase: .retrying(attempt: job.attempts + 1, reason: reason),
            received: job.offset + job.received, total: job.expectedTotal, bytesPerSecond: 0
        ))
        scheduled.append((clock.now + delay, job))
    }

    /// Verifies, syncs and moves the finished file into place atomically.
    private func finalize(_ job: TransferJob, size: Int64) {
        if fsync(job.fd) != 0 {
            conclude(job, .failure(Self.ioError(errno, path: job.partPath)))
            return
        }
        close(job.fd)
        job.fd = -1
        if rename(job.partPath, job.dataPath) != 0 {
            conclude(job, .failure(Self.ioError(errno, path: job.dataPath)))
            return
        }
        // Make the rename itself durable.
        let folder = open((job.dataPath as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        job.finalSize = size
        conclude(job, .success(job.dataPath))
    }

    private func conclude(_ job: TransferJob, _ result: Result<String, CacheError>) {
        for helper in job.rangeJobs { abandon(helper) }
        parked.removeAll { $0 === job }
        if case .failure = result, job.wroteOutOfOrder { job.recordHeldRanges() }
        // A failure before any byte (a refused redirect, a 404) leaves no empty part file.
        var info = stat()
        if case .failure = result, job.isMain, job.fd >= 0, fstat(job.fd, &info) == 0, info.st_size == 0 {
            _ = unlink(job.partPath)
        }
        if job.fd >= 0 {
            close(job.fd)
            job.fd = -1
        }
        job.complete(result)
    }

    static func ioError(_ code: Int32, path: String) -> CacheError {
        if code == ENOSPC || code == EDQUOT || code == EFBIG {
            return .diskFull(path: (path as NSString).deletingLastPathComponent)
        }
        return .io("cannot write \(path): \(String(cString: strerror(code)))")
    }
}
