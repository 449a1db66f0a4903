import MediaControl
import MediaModel
import MediaTerminal

// libFuzzer target: the numbers that reach mediaplay from outside (a socket
// request, D-Bus, a file's header or tags, a feed) through every conversion
// into an integer or a time: none may trap. The input is read as a run of
// 8-byte values, each taken both as a Double and as an Int64.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNumbers(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var doubles: [Double] = []
    var integers: [Int64] = []
    var offset = 0
    while offset + 8 <= size {
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(data[offset + index]) << (8 * index) }
        doubles.append(Double(bitPattern: bits))
        integers.append(Int64(bitPattern: bits))
        offset += 8
    }
    for (index, value) in doubles.enumerated() {
        let other = doubles[(index + 1) % doubles.count]
        // MPRIS: Position, Seeked, mpris:length, Volume.
        _ = CheckedNumber.microseconds(value)
        _ = CheckedNumber.clamped(value * 100, to: 0...150)
        // Durations and positions, stored, published and printed.
        let duration = CheckedNumber.duration(value)
        let position = CheckedNumber.position(other, within: duration)
        precondition(position.isFinite && position >= 0 && position <= CheckedNumber.longestTime)
        precondition(duration.map { $0.isFinite && $0 > 0 } ?? true)
        _ = CheckedNumber.int(value)
        _ = StatusText.clock(value)
        _ = formatDuration(value)
        _ = Percent.text(value)
        _ = SpeedText.text(AudioSettings(speed: value).speed)
        _ = SpeedText.text(value)
        let status = ItemStatus(item: 1, id: ItemKey("k"), title: "t", kind: .audio, state: .buffering, position: value, duration: other, progress: value)
        _ = StatusText.line(status)
        _ = StatusText.brief(status)
    }
    for value in integers {
        // Volume levels and steps from the socket and the command line.
        _ = CheckedNumber.clamped(value, to: -150...150)
        _ = AudioSettings(volume: Int(truncatingIfNeeded: value)).volume
    }
    // A request with these numbers, as the daemon decodes it.
    if let seconds = doubles.first, let step = integers.first {
        let line = "{\"id\":1,\"cmd\":\"seek\",\"seconds\":\(seconds),\"step\":\(step),\"level\":\(step)}"
        _ = ControlRequest.decode(line: Array(line.utf8))
    }
    return 0
}
