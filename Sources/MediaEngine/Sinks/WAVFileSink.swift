import Foundation

/// Writes the played audio to a WAV file (`--audio-out`): s16 PCM at the
/// stream's own rate and channel count, so its data equals
/// `ffmpeg -i F -map 0:a:0 -f s16le -` byte for byte.
public final class WAVFileSink: AudioSink, @unchecked Sendable {
    private let path: String
    private var handle: FileHandle?
    private var format = AudioFormat(sampleRate: 0, channels: 0)
    private var dataBytes: UInt32 = 0
    private var pending = Data()

    public init(path: String) {
        self.path = path
    }

    public func open(format: AudioFormat) throws {
        self.format = format
        handle = try OutputFile.open(path)
        try handle?.write(contentsOf: header(dataBytes: 0))
    }

    public func write(_ samples: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: samples)
        dataBytes &+= UInt32(samples.count)
        if pending.count >= 1 << 20 {
            try handle?.write(contentsOf: pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    public func close() throws {
        guard let handle else { return }
        try handle.write(contentsOf: pending)
        pending.removeAll()
        // Now that the length is known, fill it in.
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: header(dataBytes: dataBytes))
        try handle.close()
        self.handle = nil
    }

    private func header(dataBytes: UInt32) -> Data {
        var data = Data()
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        u32(36 &+ dataBytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)  // PCM
        u16(UInt16(format.channels))
        u32(UInt32(format.sampleRate))
        u32(UInt32(format.sampleRate * format.bytesPerFrame))
        u16(UInt16(format.bytesPerFrame))
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(dataBytes)
        return data
    }
}
