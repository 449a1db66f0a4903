import Foundation
import MediaCacheFolder
import MediaInterfaces

/// What an in-flight download holds, shared by its transfers (on the
/// transfer thread) and its readers (on players' reader threads).
///
/// A download is one main transfer, from the first missing byte on, plus at
/// most `maximumRangeTransfers` ranged ones that a reader starts when it needs
/// bytes far ahead of every transfer (a seek, an MP4 index at the end). Each
/// transfer stops where held bytes or another transfer's start begin, so no
/// byte is fetched twice; the main transfer then moves on to the next gap.
final class PartialEntry: @unchecked Sendable {
    /// One running transfer's claim: it writes from `start` on and has
    /// reached `position`.
    final class Segment {
        let start: Int64
        var position: Int64

        init(start: Int64) {
            self.start = start
            self.position = start
        }
    }

    enum Outcome {
        case finished(path: String)
        case failed(CacheError)
    }

    static let maximumRangeTransfers = 2

    let partPath: String
    let dataPath: String

    // Guarded by `condition`.
    let condition = NSCondition()
    private(set) var held = HeldRanges()
    /// The full size, once a response said it.
    private(set) var total: Int64?
    /// A response has arrived (so `total` is as known as it will be).
    private(set) var sizeKnown = false
    /// Ranged transfers may start: the server honours ranges and gave a
    /// validator for If-Range.
    private(set) var rangesAllowed = false
    private(set) var segments: [Segment] = []
    private var requests: [Int64] = []
    private(set) var outcome: Outcome?
    private var waitingReaders = 0
    private var openReaders = 0
    private var bytesPerSecond: Double = 0
    /// Wakes the transfer thread when a reader asks for a range.
    var wakeTransfers: (@Sendable () -> Void)?

    init(partPath: String, dataPath: String) {
        self.partPath = partPath
        self.dataPath = dataPath
    }

    // MARK: - Transfer side

    func setHeld(_ ranges: HeldRanges) {
        condition.withLock {
            held = ranges
            condition.broadcast()
        }
    }

    func setTotal(_ total: Int64?, rangesAllowed: Bool) {
        condition.withLock {
            self.total = total
            sizeKnown = true
            self.rangesAllowed = rangesAllowed && total != nil
            condition.broadcast()
        }
    }

    func refuseRanges() {
        condition.withLock {
            rangesAllowed = false
            condition.broadcast()
        }
    }

    func begin(at start: Int64) -> Segment {
        condition.withLock {
            let segment = Segment(start: start)
            segments.append(segment)
            return segment
        }
    }

    func end(_ segment: Segment) {
        condition.withLock {
            segments.removeAll { $0 === segment }
            condition.broadcast()
        }
    }

    /// Where `segment` must stop (where held bytes begin, where a transfer
    /// started ahead of it begins, or the end of the file), and whether a
    /// reader is open (then every chunk is written at once, not gathered).
    func limits(for segment: Segment) -> (stop: Int64, readers: Bool) {
        condition.withLock { (stopLocked(segment), openReaders > 0) }
    }

    private func stopLocked(_ segment: Segment) -> Int64 {
        // Arrived where another transfer's bytes are (their run may have
        // merged with held bytes beyond, so it starts behind us).
        if held.runEnd(containing: segment.position) != nil { return segment.position }
        var stop = total ?? .max
        if let next = held.nextStart(atOrAfter: segment.position) { stop = min(stop, next) }
        for other in segments where other !== segment && other.start > segment.start {
            stop = min(stop, max(other.start, segment.position))
        }
        return stop
    }

    var heldNow: HeldRanges { condition.withLock { held } }

    /// Whether the entity's full size is known (a server told it).
    var knowsTotal: Bool { condition.withLock { total != nil } }

    func setRate(_ bytesPerSecond: Double) {
        condition.withLock { self.bytesPerSecond = bytesPerSecond }
    }

    /// Bytes the transfers of this process wrote (once each, if they stop
    /// where they should).
    private(set) var bytesWritten: Int64 = 0

    var written: Int64 { condition.withLock { bytesWritten } }

    /// Bytes `range` are in the file now.
    func didWrite(_ range: Range<Int64>, by segment: Segment) {
        condition.withLock {
            bytesWritten += Int64(range.count)
            held.insert(range)
            segment.position = max(segment.position, range.upperBound)
            if waitingReaders > 0 { condition.broadcast() }
        }
    }

    /// The first byte no one holds or is fetching, if any (nil: the file is
    /// whole, or every gap has a transfer on it).
    func nextGap() -> Int64? {
        condition.withLock {
            var offset: Int64 = 0
            while true {
                if let total, offset >= total { return nil }
                if let end = held.runEnd(containing: offset) {
                    offset = end
                    continue
                }
                if let claim = segments.first(where: { $0.start <= offset && offset < stopLocked($0) }) {
                    offset = stopLocked(claim)
                    continue
                }
                return offset
            }
        }
    }

    /// Whether a ranged transfer should fetch from `offset`: nobody holds
    /// it and no transfer is about to bring it.
    func needsRange(at offset: Int64) -> Bool {
        condition.withLock {
            if let total, offset >= total { return false }
            return held.runEnd(containing: offset) == nil && !isComing(offset)
        }
    }

    /// Whether the bytes at `offset` are in the file (or it is past the end).
    func isHeld(_ offset: Int64) -> Bool {
        condition.withLock {
            if let total, offset >= total { return true }
            return held.runEnd(containing: offset) != nil
        }
    }

    var isWhole: Bool {
        condition.withLock { total.map { held.covers(total: $0) } ?? false }
    }

    /// Offsets readers asked for since the last call.
    func takeRequests() -> [Int64] {
        condition.withLock {
            defer { requests.removeAll() }
            return requests
        }
    }

    /// The bytes went away (the server sent a changed file): start over.
    func reset() {
        condition.withLock {
            held = HeldRanges()
            condition.broadcast()
        }
    }

    func conclude(_ outcome: Outcome) {
        condition.withLock {
            if case let .finished(path) = outcome, let size = MediaCache.fileSize(path) {
                total = size
                sizeKnown = true
                held = HeldRanges([0..<size])
            }
            self.outcome = outcome
            condition.broadcast()
        }
    }

    // MARK: - Reader side

    func readerOpened() { condition.withLock { openReaders += 1 } }
    func readerClosed() { condition.withLock { openReaders -= 1 } }

    /// How far ahead of a transfer a reader waits for it instead of asking
    /// for a range of its own: about a second of transfer (a new connection
    /// costs about half that on a distant server), at least 64 KiB; 256 KiB
    /// before the rate is known. (A floor of 256 KiB was 13 s of a 20 KB/s
    /// link: a seek near the end of a short episode waited for all of it.)
    private var lookahead: Int64 { bytesPerSecond > 0 ? max(64 << 10, Int64(bytesPerSecond)) : 256 << 10 }

    enum Availability {
        /// Bytes from the offset up to this end are in the file (at `path`).
        case held(end: Int64, path: String)
        case endOfFile
    }

    /// Waits until bytes at `offset` are in the file, asking for a ranged
    /// transfer when no transfer will bring them soon. `interrupted` is read
    /// under the lock: a reader that is closed stops waiting.
    func waitForBytes(at offset: Int64, interrupted: () -> Bool, onWait: (Bool) -> Void) throws(CacheError) -> Availability {
        var waited = false
        // The observer is told outside the lock (it takes its own).
        defer { if waited { onWait(false) } }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if interrupted() { throw .cancelled }
            if let end = held.runEnd(containing: offset) {
                if case let .finished(path)? = outcome { return .held(end: end, path: path) }
                return .held(end: end, path: partPath)
            }
            if let total, offset >= total { return .endOfFile }
            switch outcome {
            case .finished?: return .endOfFile
            case let .failed(error)?: throw error
            case nil: break
            }
            // Asked again when a ranged transfer ended without the bytes.
            if rangesAllowed, !segments.isEmpty, !isComing(offset), !requests.contains(offset) {
                requests.append(offset)
                wakeTransfers?()
            }
            if !waited {
                waited = true
                condition.unlock()
                onWait(true)
                condition.lock()
                continue  // look again: bytes may have come meanwhile
            }
            waitingReaders += 1
            condition.wait()
            waitingReaders -= 1
        }
    }

    /// A transfer is on its way to `offset` and near.
    private func isComing(_ offset: Int64) -> Bool {
        segments.contains { $0.start <= offset && $0.position <= offset && offset < stopLocked($0) && offset - $0.position < lookahead }
    }

    /// Waits until the size is known (the first response, or the end).
    func waitForSize(interrupted: () -> Bool) throws(CacheError) -> Int64? {
        condition.lock()
        defer { condition.unlock() }
        while !sizeKnown && outcome == nil {
            if interrupted() { throw .cancelled }
            condition.wait()
        }
        if case let .failed(error)? = outcome { throw error }
        return total
    }

    func wakeReaders() {
        condition.withLock { condition.broadcast() }
    }
}
