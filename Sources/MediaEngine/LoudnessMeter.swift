import CFFmpeg
import Foundation
import MediaModel

/// Measures a file's loudness once (EBU R128 / ITU-R BS.1770): its audio
/// decoded through libavfilter's `ebur128=peak=true`, the same filter and
/// the same conversions as `ffmpeg -i F -af ebur128=peak=true -f null -`,
/// so the result equals that command's summary. Blocks for as long as the
/// decoding takes: run it on a thread of its own, at low priority.
public enum LoudnessMeter {
    /// The file's loudness; nil when it has no sound. `progress` hears the
    /// media seconds measured so far, about once a second of media, and
    /// stops the measurement by returning false.
    public static func measure(path: String, progress: (Double) -> Bool = { _ in true }) throws(FFmpegError) -> Loudness? {
        let demuxer = try Demuxer(path: path)
        guard let index = demuxer.audioStreamIndex else { return nil }
        let name = (path as NSString).lastPathComponent
        // Only the sound is read off the disk's packets; the rest is skipped.
        for other in 0..<Int32(demuxer.context.pointee.nb_streams) where other != index {
            demuxer.stream(other).pointee.discard = AVDISCARD_ALL
        }
        let stream = demuxer.stream(index)
        let decoder = try Decoder(stream: stream, name: name, strict: false)
        let timeBase = stream.pointee.time_base.seconds
        var graph: AudioGraph?
        var last: Loudness?
        var reported = 0.0
        func read(_ frame: Frame) throws {
            let metadata = frame.pointer.pointee.metadata
            func value(_ key: String) -> Double? {
                guard let metadata, let entry = av_dict_get(metadata, key, nil, 0), let text = entry.pointee.value else { return nil }
                return Double(String(cString: text))
            }
            if let integrated = value("lavfi.r128.I"), let range = value("lavfi.r128.LRA"), let peak = value("lavfi.r128.true_peak") {
                // dBTP to a thousandth, as the others are given.
                last = Loudness(integrated: integrated, range: range, truePeak: peak > 0 ? (20 * log10(peak) * 1000).rounded() / 1000 : -.infinity)
            }
        }
        do {
            let packet = Packet()
            var stopped = false
            func take(_ frame: Frame) throws {
                if graph == nil { graph = try AudioGraph(chain: { _ in "ebur128=peak=true:metadata=1" }, for: frame.pointer) }
                try graph!.filter(frame.pointer, read)
                if let time = frame.timestamp.map({ Double($0) * timeBase }), time - reported >= 1 {
                    reported = time
                    if !progress(time) { stopped = true }
                }
            }
            while !stopped, try demuxer.readPacket(into: packet) {
                defer { av_packet_unref(packet.pointer) }
                guard packet.pointer.pointee.stream_index == index else { continue }
                while try !decoder.send(packet) {
                    while let frame = try decoder.receive() { try take(frame) }
                }
                while let frame = try decoder.receive() { try take(frame) }
            }
            if stopped { return nil }
            _ = try decoder.send(nil)
            while let frame = try decoder.receive() { try take(frame) }
            try graph?.flush(read)
        } catch let error as FFmpegError {
            throw error
        } catch {
            throw FFmpegError(context: "cannot measure \(name)", message: "\(error)")
        }
        // Silence has no integrated loudness (ebur128 says −70 LUFS, its floor).
        guard var loudness = last else { return nil }
        if !loudness.truePeak.isFinite { loudness.truePeak = -144 }
        return loudness
    }
}
