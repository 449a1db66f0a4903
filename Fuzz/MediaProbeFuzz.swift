import MediaEngine
import MediaInterfaces
import MediaModel
import MediaTerminal

// libFuzzer target: a hostile file, probed as `list` and a start do, from
// memory through the engine's own byte source (a custom AVIOContext). The
// first byte picks the name's extension (the probe's hint); what the probe
// reports then goes through every conversion a player makes of it.

final class MemorySource: ByteSource, @unchecked Sendable {
    let name: String
    let bytes: [UInt8]
    var onWait: (@Sendable (Bool) -> Void)?

    init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    func size() throws -> Int64? { Int64(bytes.count) }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard offset >= 0, offset < Int64(bytes.count) else { return 0 }
        let start = Int(offset)
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
        }
        return count
    }

    func interrupt() {}
}

let names = ["input.wav", "input.mkv", "input.mp3", "input.ogg", "input.flac", "input.mp4", "input.webm", "input"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaProbe(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 1 else { return 0 }
    let name = names[Int(data[0]) % names.count]
    let source = MemorySource(name: name, bytes: Array(UnsafeBufferPointer(start: data + 1, count: size - 1)))
    guard let details = try? MediaProbe.details(source: source) else { return 0 }
    if let duration = details.duration {
        _ = CheckedNumber.microseconds(duration)
        _ = StatusText.clock(duration)
        _ = formatDuration(duration)
    }
    if let rate = details.sampleRate {
        for channels in [1, 2, 256] { _ = AudioFormat(sampleRate: rate, channels: channels).problem }
    }
    _ = details.line.map(DisplayWidth.singleLine)
    return 0
}
