/// The byte ranges a partial entry holds: sorted, disjoint, half-open.
public struct HeldRanges: Sendable, Equatable, CustomStringConvertible {
    public private(set) var ranges: [Range<Int64>] = []

    public init(_ ranges: [Range<Int64>] = []) {
        for range in ranges { insert(range) }
    }

    /// Adds `range`, merging it with the ranges it touches.
    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        // The common case, once per chunk written: a transfer extends its
        // own run, short of the next one. In place, no new array.
        if let index = ranges.firstIndex(where: { $0.upperBound == range.lowerBound }),
           index + 1 == ranges.count || ranges[index + 1].lowerBound > range.upperBound {
            ranges[index] = ranges[index].lowerBound..<range.upperBound
            return
        }
        var merged = range
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound < merged.lowerBound || existing.lowerBound > merged.upperBound {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        let index = kept.firstIndex { $0.lowerBound > merged.lowerBound } ?? kept.endIndex
        kept.insert(merged, at: index)
        ranges = kept
    }

    /// Where the held run containing `offset` ends; nil when `offset` is not held.
    public func runEnd(containing offset: Int64) -> Int64? {
        ranges.first { $0.contains(offset) }?.upperBound
    }

    /// The start of the first held range at or after `offset`.
    public func nextStart(atOrAfter offset: Int64) -> Int64? {
        ranges.first { $0.lowerBound >= offset }?.lowerBound
    }

    /// Only what lies below `limit` (what a file of that size can hold).
    public func clamped(below limit: Int64) -> HeldRanges {
        HeldRanges(ranges.compactMap { $0.lowerBound < limit ? $0.lowerBound..<min($0.upperBound, limit) : nil })
    }

    public var byteCount: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    /// Held bytes from 0 on without a hole: an append-only file's shape.
    public var isPrefix: Bool { ranges.isEmpty || (ranges.count == 1 && ranges[0].lowerBound == 0) }

    public func covers(total: Int64) -> Bool {
        total == 0 || (ranges.count == 1 && ranges[0] == 0..<total)
    }

    /// "0-1000,5000-6000" (half-open), as the index stores it.
    public var description: String {
        ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }

    public init?(text: String) {
        self.init()
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-")
            guard bounds.count == 2, let low = Int64(bounds[0]), let high = Int64(bounds[1]), low >= 0, low <= high else { return nil }
            insert(low..<high)
        }
    }
}
