import CFFmpeg
import Foundation

/// A libavfilter audio graph: `abuffer` (the frames' own format) → a chain
/// as the ffmpeg CLI takes it after `-af` → `abuffersink`. The filter stage
/// of playback and the loudness meter build theirs here. libavfilter is
/// loaded with dlopen on the first graph (docs/ENGINE.md).
final class AudioGraph {
    /// libavfilter's functions, loaded once, on the first graph built.
    static let library: Result<mp_avfilter_api, FFmpegError> = {
        // libavfilter's own log lines would land on the user's screen; our
        // errors say it in one line.
        av_log_set_level(AV_LOG_FATAL)
        var api = mp_avfilter_api()
        var reason = [CChar](repeating: 0, count: 256)
        guard mp_avfilter_load(&api, &reason, reason.count) == 0 else {
            let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(FFmpegError(context: "cannot filter the sound", message: "\(why) (install libavfilter: apt install libavfilter\(LIBAVFILTER_VERSION_MAJOR))"))
        }
        return .success(api)
    }()

    private let api: mp_avfilter_api
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private let output = Frame()

    /// A graph for frames like `frame`; `chain` may name the input's layout
    /// (`aformat=…:channel_layouts=LAYOUT` is written with `layout`).
    init(chain: (_ layout: String) -> String, for frame: UnsafeMutablePointer<AVFrame>) throws {
        api = try Self.library.get()
        guard let graph = api.graph_alloc() else { throw FFmpegError(context: "audio filter", message: "out of memory") }
        self.graph = graph
        // One thread: the graph runs on its caller's thread.
        graph.pointee.nb_threads = 1
        let layout = Self.layoutName(frame)
        let format = String(cString: av_get_sample_fmt_name(AVSampleFormat(rawValue: frame.pointee.format)))
        let rate = frame.pointee.sample_rate
        let sourceArguments = "time_base=1/\(rate):sample_rate=\(rate):sample_fmt=\(format):channel_layout=\(layout)"
        try check(api.graph_create_filter(&source, api.get_by_name("abuffer"), "in", sourceArguments, nil, graph), "audio filter source")
        try check(api.graph_create_filter(&sink, api.get_by_name("abuffersink"), "out", nil, nil, graph), "audio filter sink")
        let description = chain(layout)
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
        try check(api.graph_parse_ptr(graph, description, &inputs, &outputs, nil), "audio filter \(description)")
        try check(api.graph_config(graph, nil), "audio filter setup")
    }

    deinit {
        api.graph_free(&graph)
    }

    /// A frame's channel layout as libavfilter names it ("stereo").
    static func layoutName(_ frame: UnsafeMutablePointer<AVFrame>) -> String {
        var described = [CChar](repeating: 0, count: 128)
        var channelLayout = frame.pointee.ch_layout
        if channelLayout.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&channelLayout, channelLayout.nb_channels) }
        av_channel_layout_describe(&channelLayout, &described, described.count)
        return String(decoding: described.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Filters `frame`, passing each frame that comes out to `body`.
    func filter(_ frame: UnsafeMutablePointer<AVFrame>, _ body: (Frame) throws -> Void) throws {
        try check(api.buffersrc_add_frame_flags(source, frame, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)), "audio filter input")
        try drain(body)
    }

    /// What the graph still holds (end of stream).
    func flush(_ body: (Frame) throws -> Void) throws {
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
}
