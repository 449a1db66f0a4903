import CFFmpeg

/// A packet on its way from the reader to a decoder. `serial` changes with
/// every seek, so a decoder knows to flush and drop what came before.
struct QueuedPacket {
    /// nil marks the end of the stream.
    let packet: Packet?
    let serial: Int
}

/// One stream's packets between the reader and its decoder. Not locked by
/// itself: the player's condition guards every queue, so the reader can ask
/// "do all queues have enough?" in one consistent look.
struct PacketQueue {
    private var items: [QueuedPacket] = []
    private var head = 0
    private(set) var bytes = 0
    /// Sum of packet durations, in the stream's time base.
    private(set) var duration: Int64 = 0
    let timeBase: AVRational

    init(timeBase: AVRational) { self.timeBase = timeBase }

    var count: Int { items.count - head }
    var isEmpty: Bool { count == 0 }

    /// Enough buffered that the reader may rest (ffplay's rule: more than 25
    /// packets and more than a second), or the stream's end is queued.
    var hasEnough: Bool {
        if let last = items.last, last.packet == nil, count > 0 { return true }
        return count > 25 && Double(duration) * timeBase.seconds > 1.0
    }

    /// Seconds of packets queued; a queued end counts as plenty.
    var seconds: Double {
        if let last = items.last, last.packet == nil, count > 0 { return .infinity }
        return Double(duration) * timeBase.seconds
    }

    mutating func push(_ item: QueuedPacket) {
        items.append(item)
        if let packet = item.packet {
            bytes += Int(packet.pointer.pointee.size)
            duration += max(packet.pointer.pointee.duration, 0)
        }
    }

    mutating func pop() -> QueuedPacket? {
        guard head < items.count else { return nil }
        let item = items[head]
        // The slot lets its packet go now, not at the next compaction (up
        // to 64 packets, a megabyte of 1080p, were kept that way).
        items[head] = QueuedPacket(packet: nil, serial: item.serial)
        head += 1
        if let packet = item.packet {
            bytes -= Int(packet.pointer.pointee.size)
            duration -= max(packet.pointer.pointee.duration, 0)
        }
        // Compact now and then instead of shifting on every pop.
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        head = 0
        bytes = 0
        duration = 0
    }
}
