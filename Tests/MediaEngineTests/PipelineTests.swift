import TestKit
@testable import MediaEngine
import CFFmpeg
import MediaInterfaces
import Testing

/// `--stats`' drift distribution against the exact nearest-rank percentiles
/// of the same values, sorted.
@Suite struct DriftHistogramTests {
    @Test func percentilesAreTheSortedValuesToTheBucket() {
        var generator = SplitMix(seed: 16)
        for count in [1, 2, 10, 600, 10_000] {
            var histogram = DriftHistogram()
            // Mostly small drifts, some large, a few past the last bucket.
            let values = (0..<count).map { _ in
                Double.random(in: 0...1, using: &generator) < 0.95 ? Double.random(in: 0..<0.01, using: &generator) : Double.random(in: 0..<0.2, using: &generator)
            }
            for value in values { histogram.add(value) }
            let sorted = values.sorted()
            #expect(histogram.count == count)
            #expect(histogram.maximum == sorted.last)
            for fraction in [0.5, 0.9, 0.99, 1.0] {
                let exact = sorted[max(1, Int((Double(count) * fraction).rounded(.up))) - 1]
                let reported = histogram.percentile(fraction)
                // Within its 0.1 ms bucket, above it; past 100 ms, the largest.
                if exact < 0.1 {
                    #expect(reported >= exact && reported <= exact + 0.0001 + 1e-12, "count \(count), p\(fraction): \(reported) for \(exact)")
                } else {
                    #expect(reported == sorted.last)
                }
            }
        }
        #expect(DriftHistogram().percentile(0.99) == 0)
    }

    /// A damaged file's timestamps can make any drift: none of them traps.
    @Test func absurdDriftsAreCountedNotFatal() {
        var histogram = DriftHistogram()
        for value in [Double.infinity, 1e300, 9.3e14, Double.nan, -1, 0.001] { histogram.add(value) }
        #expect(histogram.count == 6)
        #expect(histogram.maximum == .infinity)
        #expect(histogram.percentile(1.0) == .infinity)
    }
}

/// A packet leaves memory when its decoder has taken it, not when the
/// queue next compacts (a megabyte of 1080p packets was held that way).
@Suite struct PacketQueueTests {
    @Test func aPoppedPacketIsReleased() {
        var queue = PacketQueue(timeBase: AVRational(num: 1, den: 1000))
        weak var popped: Packet?
        do {
            let packet = Packet()
            popped = packet
            queue.push(QueuedPacket(packet: packet, serial: 0))
            queue.push(QueuedPacket(packet: Packet(), serial: 0))
        }
        #expect(popped != nil, "queued packets are held")
        do {
            let item = queue.pop()
            #expect(item?.packet != nil)
        }
        #expect(popped == nil, "the queue still held a popped packet")
        #expect(queue.count == 1)
    }
}
