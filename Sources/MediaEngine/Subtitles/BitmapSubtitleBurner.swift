import CFFmpeg
import Foundation

/// Bitmap subtitles (PGS, DVB, VobSub) drawn into the picture as the ffmpeg
/// CLI draws them with `-filter_complex "[0:v][0:s]overlay"`: each subtitle
/// becomes a transparent BGRA canvas with its rectangles painted through
/// their palettes, pushed at its start and cleared at its end, and
/// libavfilter's `overlay` puts the newest canvas at or before each picture
/// over it. The track is read alongside the pictures from a reader of its
/// own (the item's file opened again with only that stream), so a film's
/// subtitles are never all held at once; a jump back starts it again.
final class BitmapSubtitleBurner {
    private let source: SubtitleSource
    /// The video's size in the same file: the canvas when the track names none.
    private let fallbackSize: (width: Int32, height: Int32)
    private let api: mp_avfilter_api
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var mainInput: UnsafeMutablePointer<AVFilterContext>?
    private var canvasInput: UnsafeMutablePointer<AVFilterContext>?
    private var output: UnsafeMutablePointer<AVFilterContext>?
    private var shape: (width: Int32, height: Int32, format: Int32)?

    // The track's reader.
    private var input: SubtitleInput?
    private var decoder: SubtitleDecoder?
    private var subtitleBase = AVRational(num: 1, den: 1000)
    private var readerEnded = false
    /// Read and not yet pushed: a subtitle and its start and end (track time base).
    private var pending: (subtitle: DecodedSubtitle, start: Int64, end: Int64)?
    /// The canvas pushed last and when it stops showing.
    private var shownEnd = Int64.min
    private var lastPushed = Int64.min
    private var current: Frame?
    private var lastMain: (pts: Int64, base: AVRational)?

    init(source: SubtitleSource, fallbackSize: (width: Int32, height: Int32)) throws(FFmpegError) {
        self.source = source
        self.fallbackSize = fallbackSize
        api = try AudioGraph.library.get()
    }

    deinit {
        api.graph_free(&graph)
    }

    private var name: String { (source.path as NSString).lastPathComponent }

    /// The picture with the subtitle showing at `pts` (in `timeBase`) over it.
    func burn(_ frame: Frame, pts: Int64, timeBase: AVRational) throws(FFmpegError) -> Frame {
        let f = frame.pointer
        let failure = "cannot draw the subtitles of \(name)"
        // A jump back (a seek): the track is read again from its start.
        if let last = lastMain, av_compare_ts(pts, timeBase, last.pts, last.base) < 0 { restart() }
        if input == nil { try openReader() }
        if shape == nil || shape! != (f.pointee.width, f.pointee.height, f.pointee.format) { try build(for: f, timeBase: timeBase) }
        lastMain = (pts, timeBase)
        // This picture's time on the track's clock, rounded up: whatever is
        // due by then is on the canvas input before the picture goes in.
        let due = av_rescale_q_rnd(pts, timeBase, subtitleBase, AV_ROUND_UP)
        try advance(to: due)
        if lastPushed < due { try push(current, at: due) }
        let saved = f.pointee.pts
        f.pointee.pts = pts
        let added = api.buffersrc_add_frame_flags(mainInput, f, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        f.pointee.pts = saved
        try check(added, failure)
        let out = Frame()
        try check(api.buffersink_get_frame(output, out.pointer), failure)
        out.pointer.pointee.best_effort_timestamp = f.pointee.best_effort_timestamp
        out.pointer.pointee.pts = saved
        return out
    }

    /// Pushes what the track shows up to `due`: of the subtitles that start
    /// by then only the newest (a canvas overlay would never pick is not
    /// made), and the clear at its end when that has come.
    private func advance(to due: Int64) throws(FFmpegError) {
        var newest: (subtitle: DecodedSubtitle, start: Int64, end: Int64)?
        while true {
            if pending == nil { pending = try readSubtitle() }
            guard let next = pending, next.start <= due else { break }
            // The one before ends here unless it ended already: its clear
            // comes first if it ended before this start.
            if let earlier = newest, earlier.end < next.start, earlier.end <= due {
                newest = nil
                shownEnd = earlier.end
            }
            newest = next
            pending = nil
        }
        if let newest {
            current = try canvas(for: newest.subtitle)
            try push(current, at: newest.start)
            shownEnd = newest.end
        }
        // Ended, and nothing new by then: a clear canvas at its end.
        if shownEnd <= due, shownEnd > lastPushed, current != nil {
            current = nil
            try push(nil, at: shownEnd)
        }
    }

    /// The next subtitle of the track with its times (track time base), or nil at its end.
    private func readSubtitle() throws(FFmpegError) -> (subtitle: DecodedSubtitle, start: Int64, end: Int64)? {
        guard let input, let decoder, !readerEnded else { return nil }
        let packet = Packet()
        while true {
            guard try input.read(into: packet) else {
                readerEnded = true
                return nil
            }
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == source.streamIndex, let decoded = decoder.decodeWhole(packet) else { continue }
            // As ffmpeg times it: the packet's time less the container's start, in µs, plus the display times.
            let offset = Int64((source.offset * 1_000_000).rounded())
            let base = decoded.value.pts == mp_av_nopts_value() ? av_rescale_q(packet.pointer.pointee.pts, subtitleBase, mp_av_time_base_q()) : decoded.value.pts
            let start = av_rescale_q(base - offset + Int64(decoded.value.start_display_time) * 1000, mp_av_time_base_q(), subtitleBase)
            let end = av_rescale_q(base - offset + Int64(decoded.value.end_display_time) * 1000, mp_av_time_base_q(), subtitleBase)
            return (decoded, start, end)
        }
    }

    /// A transparent BGRA canvas with the subtitle's rectangles painted on it
    /// (nil: nothing shows). A rectangle that does not fit is left out, as ffmpeg leaves it.
    private func canvas(for subtitle: DecodedSubtitle) throws(FFmpegError) -> Frame? {
        let value = subtitle.value
        guard value.num_rects > 0 else { return nil }
        let frame = try blankCanvas()
        let f = frame.pointer
        let width = Int(f.pointee.width), height = Int(f.pointee.height)
        let stride = Int(f.pointee.linesize.0)
        for index in 0..<Int(value.num_rects) {
            guard let rect = value.rects[index]?.pointee, rect.type == SUBTITLE_BITMAP, let pixels = rect.data.0, let palette = rect.data.1 else { continue }
            let (x, y, w, h) = (Int(rect.x), Int(rect.y), Int(rect.w), Int(rect.h))
            guard x >= 0, y >= 0, w >= 0, h >= 0, x + w <= width, y + h <= height else { continue }
            let colors = UnsafeRawPointer(palette).assumingMemoryBound(to: UInt32.self)
            let colorCount = Int(max(0, min(rect.nb_colors, 256)))
            let lineSize = Int(rect.linesize.0)
            for row in 0..<h {
                let line = (f.pointee.data.0! + (y + row) * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: w) { $0 }
                for column in 0..<w {
                    let index = Int(pixels[row * lineSize + column])
                    line[column] = index < colorCount ? colors[index] : 0
                }
            }
        }
        return frame
    }

    private func blankCanvas() throws(FFmpegError) -> Frame {
        let frame = Frame()
        let size: (width: Int32, height: Int32) = decoder?.canvasSize ?? (0, 0)
        let f = frame.pointer
        f.pointee.width = size.width > 0 && size.height > 0 ? size.width : fallbackSize.width
        f.pointee.height = size.width > 0 && size.height > 0 ? size.height : fallbackSize.height
        f.pointee.format = AV_PIX_FMT_BGRA.rawValue
        try check(av_frame_get_buffer(f, 0), "cannot draw the subtitles of \(name)")
        if let pixels = f.pointee.data.0 { memset(pixels, 0, Int(f.pointee.height) * Int(f.pointee.linesize.0)) }
        return frame
    }

    /// Hands a canvas (nil: a clear one) to the overlay at `pts`.
    private func push(_ canvas: Frame?, at pts: Int64) throws(FFmpegError) {
        let frame: Frame
        if let canvas { frame = canvas } else { frame = try blankCanvas() }
        let f = frame.pointer
        f.pointee.pts = pts
        try check(api.buffersrc_add_frame_flags(canvasInput, f, Int32(AV_BUFFERSRC_FLAG_KEEP_REF | AV_BUFFERSRC_FLAG_PUSH)), "cannot draw the subtitles of \(name)")
        lastPushed = pts
    }

    private func openReader() throws(FFmpegError) {
        let opened = try SubtitleInput(path: source.path)
        let stream = try opened.only(source.streamIndex)
        decoder = try SubtitleDecoder(stream: stream, name: name)
        subtitleBase = stream.pointee.time_base
        input = opened
    }

    /// From the top: a new reader and graph.
    private func restart() {
        input = nil
        decoder = nil
        readerEnded = false
        pending = nil
        shownEnd = Int64.min
        lastPushed = Int64.min
        current = nil
        shape = nil
        api.graph_free(&graph)
    }

    private func build(for frame: UnsafeMutablePointer<AVFrame>, timeBase: AVRational) throws(FFmpegError) {
        api.graph_free(&graph)
        shape = nil
        lastPushed = Int64.min
        guard let graph = api.graph_alloc() else { throw FFmpegError(context: "cannot draw subtitles", message: "out of memory") }
        self.graph = graph
        graph.pointee.nb_threads = 1
        let failure = "cannot draw the subtitles of \(name)"
        let aspect = frame.pointee.sample_aspect_ratio
        let main = "video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(frame.pointee.format):time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(max(aspect.num, 0))/\(max(aspect.den, 1))"
        let blank = try blankCanvas()
        let canvas = "video_size=\(blank.pointer.pointee.width)x\(blank.pointer.pointee.height):pix_fmt=\(AV_PIX_FMT_BGRA.rawValue):time_base=\(subtitleBase.num)/\(subtitleBase.den):pixel_aspect=0/1"
        try check(api.graph_create_filter(&mainInput, api.get_by_name("buffer"), "main", main, nil, graph), failure)
        try check(api.graph_create_filter(&canvasInput, api.get_by_name("buffer"), "subtitles", canvas, nil, graph), failure)
        var overlay: UnsafeMutablePointer<AVFilterContext>?
        try check(api.graph_create_filter(&overlay, api.get_by_name("overlay"), "overlay", nil, nil, graph), failure)
        try check(api.graph_create_filter(&output, api.get_by_name("buffersink"), "out", nil, nil, graph), failure)
        try check(api.link(mainInput, 0, overlay, 0), failure)
        try check(api.link(canvasInput, 0, overlay, 1), failure)
        try check(api.link(overlay, 0, output, 0), failure)
        try check(api.graph_config(graph, nil), failure)
        // The canvas showing goes in again at the next picture (`burn`).
        shape = (frame.pointee.width, frame.pointee.height, frame.pointee.format)
    }
}
