import Foundation

/// Items' fields made into drafts on a second thread while the document is
/// still read: resolving the URLs and reading the HTML notes is a third of
/// a large feed's cost, and the reading itself (libxml2, one pass) cannot
/// be shared. A large feed then takes about the time of its slower half; a
/// small one (under one batch) never starts the thread.
final class DraftPipeline: @unchecked Sendable {
    private let origin: FeedOrigin
    private static let batchSize = 256

    // The reading thread's own.
    private var batch: [PodcastReader.ItemFields] = []
    private var started = false
    /// Items added so far.
    private(set) var count = 0

    // Shared with the converting thread, under `condition`.
    private let condition = NSCondition()
    private var queued: [[PodcastReader.ItemFields]] = []
    private var noMore = false
    private var converted: [FeedDraft]?

    init(origin: FeedOrigin) {
        self.origin = origin
        batch.reserveCapacity(Self.batchSize)
    }

    func add(_ fields: PodcastReader.ItemFields) {
        count += 1
        batch.append(fields)
        guard batch.count >= Self.batchSize else { return }
        condition.lock()
        queued.append(batch)
        condition.signal()
        condition.unlock()
        batch.removeAll(keepingCapacity: true)
        if !started {
            started = true
            let thread = Thread { [self] in convertQueued() }
            thread.name = "feed drafts"
            thread.start()
        }
    }

    /// Every item's draft, in the order added.
    func finish() -> [FeedDraft] {
        // The last part on this thread, beside the other's.
        let tail = batch.map { $0.draft(origin: origin) }
        batch = []
        guard started else { return tail }
        condition.lock()
        noMore = true
        condition.signal()
        while converted == nil { condition.wait() }
        var drafts = converted ?? []
        converted = []
        condition.unlock()
        drafts.append(contentsOf: tail)
        return drafts
    }

    /// Lets the converting thread go without the rest (the document failed).
    /// Safe after `finish()` too.
    func stop() {
        condition.lock()
        queued = []
        noMore = true
        condition.signal()
        condition.unlock()
    }

    private func convertQueued() {
        var drafts: [FeedDraft] = []
        while true {
            condition.lock()
            while queued.isEmpty && !noMore { condition.wait() }
            let next = queued
            queued = []
            let last = noMore && next.isEmpty
            if last {
                converted = drafts
                condition.signal()
            }
            condition.unlock()
            if last { return }
            for part in next {
                for fields in part { drafts.append(fields.draft(origin: origin)) }
            }
        }
    }
}
