import CFFmpeg
import Foundation
import MediaModel

extension AudioSettings {
    /// The libavfilter graph, as the ffmpeg CLI would take it after `-af`.
    var graphDescription: String {
        var filters: [String] = []
        if volume != 100 || muted { filters.append("volume=\(muted ? 0 : Double(volume) / 100)") }
        if speed != 1 {
            // atempo takes 0.5 and up: below, two in a row (0.25 = 0.5 × 0.5).
            if speed < 0.5 { filters += ["atempo=0.5", "atempo=\(speed / 0.5)"] } else { filters.append("atempo=\(speed)") }
        }
        return filters.isEmpty ? "anull" : filters.joined(separator: ",")
    }
}

/// The audio filter stage between the decoder and the resampler: a
/// libavfilter graph (`abuffer` → the settings filters → s16 → `abuffersink`),
/// the same filters and conversions as `ffmpeg -af …`, so the output can be
/// checked against the ffmpeg CLI bit for bit. A new settings takes effect at
/// the next frame (the graph is rebuilt there: `volume` keeps no state).
final class AudioFilter {
    /// libavfilter's functions, loaded once, on the first filter built.
    private static let library: Result<mp_avfilter_api, FFmpegError> = {
        var api = mp_avfilter_api()
        var reason = [CChar](repeating: 0, count: 256)
        guard mp_avfilter_load(&api, &reason, reason.count) == 0 else {
            let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(FFmpegError(context: "cannot change the speed or a recording's volume", message: "\(why) (install libavfilter: apt install libavfilter\(LIBAVFILTER_VERSION_MAJOR))"))
        }
        return .success(api)
    }()

    private let api: mp_avfilter_api
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private var built: (settings: AudioSettings, format: Int32, rate: Int32, channels: Int32)?
    private let output = Frame()

    init() throws(FFmpegError) {
        api = try Self.library.get()
    }

    deinit {
        api.graph_free(&graph)
    }

    /// Filters `frame` with `settings`, passing each frame that comes out to
    /// `body` (a frame of the same samples, as s16).
    func filter(_ frame: Frame, settings: AudioSettings, _ body: (Frame) throws -> Void) throws {
        let f = frame.pointer
        let signature = (settings, f.pointee.format, f.pointee.sample_rate, f.pointee.ch_layout.nb_channels)
        if built == nil || built! != signature {
            try build(for: f, settings: settings)
            built = signature
        }
        try check(api.buffersrc_add_frame_flags(source, f, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)), "audio filter input")
        try drain(body)
    }

    /// What the graph still holds (end of stream).
    func flush(_ body: (Frame) throws -> Void) throws {
        guard source != nil else { return }
        try check(api.buffersrc_add_frame_flags(source, nil, 0), "audio filter flush")
        try drain(body)
    }

    private func drain(_ body: (Frame) throws -> Void) throws {
        while true {
            let result = api.buffersink_get_frame(sink, output.pointer)
            if result == mp_averror_eagain() || result == mp_averror_eof() { return }
            try check(result, "audio filter output")
            defer { av_frame_unref(output.pointer) }
            try body(output)
        }
    }

    private func build(for f: UnsafeMutablePointer<AVFrame>, settings: AudioSettings) throws {
        api.graph_free(&graph)
        guard let graph = api.graph_alloc() else { throw FFmpegError(context: "audio filter", message: "out of memory") }
        self.graph = graph
        // One thread: the graph runs on the audio decoder's thread.
        graph.pointee.nb_threads = 1
        var described = [CChar](repeating: 0, count: 128)
        var channelLayout = f.pointee.ch_layout
        if channelLayout.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&channelLayout, channelLayout.nb_channels) }
        av_channel_layout_describe(&channelLayout, &described, described.count)
        let layout = String(decoding: described.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let format = String(cString: av_get_sample_fmt_name(AVSampleFormat(rawValue: f.pointee.format)))
        let rate = f.pointee.sample_rate
        let sourceArguments = "time_base=1/\(rate):sample_rate=\(rate):sample_fmt=\(format):channel_layout=\(layout)"
        var source: UnsafeMutablePointer<AVFilterContext>?
        try check(api.graph_create_filter(&source, api.get_by_name("abuffer"), "in", sourceArguments, nil, graph), "audio filter source")
        var sink: UnsafeMutablePointer<AVFilterContext>?
        try check(api.graph_create_filter(&sink, api.get_by_name("abuffersink"), "out", nil, nil, graph), "audio filter sink")
        // The filters, then s16 at the stream's own rate and layout (what the
        // ffmpeg CLI converts to for `-f s16le`).
        let chain = "\(settings.graphDescription),aformat=sample_fmts=s16:sample_rates=\(rate):channel_layouts=\(layout)"
        var outputs = api.inout_alloc()
        var inputs = api.inout_alloc()
        defer {
            api.inout_free(&outputs)
            api.inout_free(&inputs)
        }
        outputs?.pointee.name = av_strdup("in")
        outputs?.pointee.filter_ctx = source
        outputs?.pointee.pad_idx = 0
        outputs?.pointee.next = nil
        inputs?.pointee.name = av_strdup("out")
        inputs?.pointee.filter_ctx = sink
        inputs?.pointee.pad_idx = 0
        inputs?.pointee.next = nil
        try check(api.graph_parse_ptr(graph, chain, &inputs, &outputs, nil), "audio filter \(chain)")
        try check(api.graph_config(graph, nil), "audio filter setup")
        self.source = source
        self.sink = sink
    }
}
