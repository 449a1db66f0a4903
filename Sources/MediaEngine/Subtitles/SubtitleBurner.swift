import CFFmpeg
import Foundation

/// Text subtitles drawn into the picture by libass, through libavfilter's
/// `subtitles` filter: the window and `--video-out` show exactly what
/// `ffmpeg -vf subtitles=FILE:si=N` makes (styles, positions and fonts
/// included). The graph is built for the first picture and again when the
/// picture's size or format changes; it runs on the video decoder thread.
final class SubtitleBurner {
    private let source: SubtitleSource
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var input: UnsafeMutablePointer<AVFilterContext>?
    private var output: UnsafeMutablePointer<AVFilterContext>?
    private var shape: (width: Int32, height: Int32, format: Int32)?
    private let api: mp_avfilter_api

    init(source: SubtitleSource) throws(FFmpegError) {
        self.source = source
        api = try AudioGraph.library.get()
    }

    deinit {
        api.graph_free(&graph)
    }

    /// The picture with the subtitle of media time `pts` (in `timeBase`)
    /// drawn in; `frame` itself is left as it was.
    func burn(_ frame: Frame, pts: Int64, timeBase: AVRational) throws(FFmpegError) -> Frame {
        let f = frame.pointer
        if shape == nil || shape! != (f.pointee.width, f.pointee.height, f.pointee.format) {
            try build(for: f, timeBase: timeBase)
        }
        let saved = f.pointee.pts
        f.pointee.pts = pts
        let added = api.buffersrc_add_frame_flags(input, f, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        f.pointee.pts = saved
        try check(added, "cannot draw the subtitles of \(name)")
        let out = Frame()
        try check(api.buffersink_get_frame(output, out.pointer), "cannot draw the subtitles of \(name)")
        // The decoder's timestamp goes on with the picture.
        out.pointer.pointee.best_effort_timestamp = f.pointee.best_effort_timestamp
        out.pointer.pointee.pts = saved
        return out
    }

    private var name: String { (source.path as NSString).lastPathComponent }

    private func build(for frame: UnsafeMutablePointer<AVFrame>, timeBase: AVRational) throws(FFmpegError) {
        api.graph_free(&graph)
        shape = nil
        guard let graph = api.graph_alloc() else { throw FFmpegError(context: "cannot draw subtitles", message: "out of memory") }
        self.graph = graph
        graph.pointee.nb_threads = 1
        let failure = "cannot draw the subtitles of \(name)"
        let aspect = frame.pointee.sample_aspect_ratio
        let arguments = "video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(frame.pointee.format):time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(max(aspect.num, 0))/\(max(aspect.den, 1))"
        try check(api.graph_create_filter(&input, api.get_by_name("buffer"), "in", arguments, nil, graph), failure)
        try check(api.graph_create_filter(&output, api.get_by_name("buffersink"), "out", nil, nil, graph), failure)
        guard let filter = api.get_by_name("subtitles") else {
            throw FFmpegError(context: failure, message: "this libavfilter has no subtitles filter (it is built without libass)")
        }
        guard let subtitles = api.graph_alloc_filter(graph, filter, "subtitles") else { throw FFmpegError(context: failure, message: "out of memory") }
        // Options set one by one: a path is never parsed as filter syntax.
        try check(av_opt_set(subtitles, "filename", source.path, AV_OPT_SEARCH_CHILDREN), failure)
        try check(av_opt_set_int(subtitles, "stream_index", Int64(source.ordinal), AV_OPT_SEARCH_CHILDREN), failure)
        let initialised = api.init_str(subtitles, nil)
        if initialised < 0 {
            throw FFmpegError(context: failure, message: "libass could not read them (\(FFmpegError(code: initialised, context: "").message))")
        }
        try check(api.link(input, 0, subtitles, 0), failure)
        try check(api.link(subtitles, 0, output, 0), failure)
        try check(api.graph_config(graph, nil), failure)
        shape = (frame.pointee.width, frame.pointee.height, frame.pointee.format)
    }
}
