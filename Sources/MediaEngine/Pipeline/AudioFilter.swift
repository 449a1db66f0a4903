import CFFmpeg
import Foundation
import MediaModel

/// What the filter stage does to the sound: the user's own chain (`--af`),
/// then a gain (volume × loudness normalisation; 1 for a device, which
/// applies it as it plays), then the speed.
struct AudioStage: Equatable {
    /// A libavfilter chain as `ffmpeg -af` takes it, or nil.
    var filters: String?
    /// Linear; 0 is muted.
    var gain: Double
    var speed: Double

    /// Nothing to do: the output stays ffmpeg's plain decoding, bit for bit.
    var isIdentity: Bool { filters == nil && gain == 1 && speed == 1 }

    /// The graph, as the ffmpeg CLI would take it after `-af`.
    var graphDescription: String {
        var chain: [String] = filters.map { [$0] } ?? []
        // Seventeen digits: the same double as a factor computed here (the
        // one ffmpeg's volume=replaygain computes).
        if gain != 1 { chain.append("volume=\(String(format: "%.17g", gain))") }
        if speed != 1 {
            // atempo takes 0.5 and up: below, two in a row (0.25 = 0.5 × 0.5).
            if speed < 0.5 { chain += ["atempo=0.5", "atempo=\(speed / 0.5)"] } else { chain.append("atempo=\(speed)") }
        }
        return chain.isEmpty ? "anull" : chain.joined(separator: ",")
    }
}

/// The audio filter stage between the decoder and the resampler, over an
/// `AudioGraph`: the stage's filters, then s16 at the stream's own rate and
/// layout, the same filters and conversions as `ffmpeg -af … -f s16le`, so
/// the output can be checked against the ffmpeg CLI bit for bit. A new stage
/// takes effect at the next frame (the graph is rebuilt there).
final class AudioFilter {
    private var graph: AudioGraph?
    private var built: (stage: AudioStage, format: Int32, rate: Int32, channels: Int32)?

    init() {}

    /// Filters `frame` through `stage`, passing each frame that comes out to
    /// `body` (a frame of the same samples, as s16).
    func filter(_ frame: Frame, stage: AudioStage, _ body: (Frame) throws -> Void) throws {
        let f = frame.pointer
        let signature = (stage, f.pointee.format, f.pointee.sample_rate, f.pointee.ch_layout.nb_channels)
        if graph == nil || built! != signature {
            let rate = f.pointee.sample_rate
            graph = try AudioGraph(chain: { layout in "\(stage.graphDescription),aformat=sample_fmts=s16:sample_rates=\(rate):channel_layouts=\(layout)" }, for: f)
            built = signature
        }
        try graph!.filter(f, body)
    }

    /// What the graph still holds (end of stream).
    func flush(_ body: (Frame) throws -> Void) throws {
        try graph?.flush(body)
    }
}
