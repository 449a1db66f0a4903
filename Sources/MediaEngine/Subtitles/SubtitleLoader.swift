import CFFmpeg
import Foundation
import MediaModel
import MediaTerminal

/// Reads one subtitle track whole into a timeline, on a thread of its own,
/// ahead of playback: its file opened once more with every other stream
/// discarded (an MP4 then skips their samples unread), each packet decoded
/// by libavcodec (`avcodec_decode_subtitle2`) as ffmpeg decodes it.
enum SubtitleLoader {
    /// Starts reading `source` into a new timeline; `stopped` ends it early
    /// (a track changed, playback over).
    /// `ass`: the libass track that draws the track into pictures, filled alongside.
    static func start(_ source: SubtitleSource, ass: AssTrack? = nil, stopped: @escaping @Sendable () -> Bool, onChange: @escaping @Sendable () -> Void) -> SubtitleTimeline {
        let timeline = SubtitleTimeline(onChange: onChange)
        let thread = Thread {
            do throws(FFmpegError) {
                try load(source, into: timeline, ass: ass, stopped: stopped)
                timeline.finish()
            } catch {
                timeline.finish(failure: error.description)
            }
        }
        thread.name = "mediaplay.subtitles"
        thread.start()
        return timeline
    }

    /// Reads the whole track on the caller's thread.
    static func load(_ source: SubtitleSource, into timeline: SubtitleTimeline, ass: AssTrack? = nil, stopped: () -> Bool = { false }) throws(FFmpegError) {
        let input = try SubtitleInput(path: source.path)
        let stream = try input.only(source.streamIndex)
        let decoder = try SubtitleDecoder(stream: stream, name: input.name)
        if let ass {
            // As the subtitles filter: the header's styles, the file's fonts.
            let context = decoder.codecContext
            let header = context.pointee.subtitle_header.map { UnsafeRawBufferPointer(start: $0, count: Int(context.pointee.subtitle_header_size)) }
            ass.configure(header: header, fonts: input.attachedFonts)
        }
        let packet = Packet()
        var budget = SubtitleBudget()
        var refusal: SubtitleLimitError?
        reading: while !stopped() {
            guard try input.read(into: packet) else { break }
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == source.streamIndex else { continue }
            do throws(SubtitleLimitError) {
                try budget.read(bytes: Int(packet.pointer.pointee.size))
                if let decoded = decoder.decodeWhole(packet) {
                    let cues = decoder.cues(from: decoded, packet: packet, offset: source.offset)
                    // Past the cues showing at once, a cue is left out of both.
                    var taken = true
                    for cue in cues where try !budget.take(start: cue.start, end: cue.end) { taken = false }
                    if taken {
                        ass?.add(decoded.value)
                        for cue in cues { timeline.add(cue) }
                    }
                }
            } catch {
                refusal = error
                break reading
            }
            if let time = decoder.time(of: packet, offset: source.offset) { timeline.reached(time) }
        }
        // A file of its own that gave no cue at all is said, never silent.
        if refusal == nil, !stopped(), source.track.file != nil, timeline.allCues.isEmpty {
            throw FFmpegError(context: "cannot show the subtitles of \(source.track.file ?? input.name)", message: "no cue in it could be read")
        }
        if let refusal {
            // Refused whole: what was read is let go at once.
            ass?.clear()
            timeline.discard()
            throw FFmpegError(context: "cannot show the subtitles of \(input.name)", message: refusal.reason)
        }
    }
}

/// libavcodec's subtitle decoder for one stream.
final class SubtitleDecoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private let timeBase: AVRational

    init(stream: UnsafeMutablePointer<AVStream>, name: String) throws(FFmpegError) {
        timeBase = stream.pointee.time_base
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(context: "cannot decode the subtitles of \(name)", message: "no decoder for \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))")
        }
        context = avcodec_alloc_context3(codec)
        guard let context else { throw FFmpegError(context: "cannot decode the subtitles of \(name)", message: "out of memory") }
        try check(avcodec_parameters_to_context(context, parameters), "cannot decode the subtitles of \(name)")
        context.pointee.pkt_timebase = stream.pointee.time_base
        try check(avcodec_open2(context, codec, nil), "cannot decode the subtitles of \(name)")
    }

    deinit {
        avcodec_free_context(&context)
    }

    var codecContext: UnsafeMutablePointer<AVCodecContext> { context! }

    /// The packet's time in media seconds, if it has one.
    func time(of packet: Packet, offset: Double) -> Double? {
        let pts = packet.pointer.pointee.pts
        guard pts != mp_av_nopts_value(), timeBase.den != 0 else { return nil }
        return CheckedNumber.time(Double(pts) * Double(timeBase.num) / Double(timeBase.den) - offset)
    }

    /// The cues a decoded packet holds.
    func cues(from decoded: DecodedSubtitle, packet: Packet, offset: Double) -> [SubtitleCue] {
        let subtitle = decoded.value
        // The subtitle's own time (microseconds), else the packet's.
        let base: Double
        if subtitle.pts != mp_av_nopts_value() {
            base = Double(subtitle.pts) / Double(AV_TIME_BASE) - offset
        } else if let time = time(of: packet, offset: offset) {
            base = time
        } else {
            return []
        }
        guard let start = CheckedNumber.time(base + Double(subtitle.start_display_time) / 1000) else { return [] }
        // No end (0, or UINT32_MAX): shown until the next.
        let endMilliseconds = subtitle.end_display_time
        let end = endMilliseconds == 0 || endMilliseconds == UInt32.max ? start : base + Double(endMilliseconds) / 1000
        var texts: [String] = []
        var pictures = false
        for index in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[index] else { continue }
            // Cut before the tags go (a line of megabytes costs nothing), and after.
            let kept = SubtitleLimits.shownTextBytes * 2
            if let ass = rect.pointee.ass {
                texts.append(SubtitleLimits.cut(SubtitleText.plain(assEvent: SubtitleLimits.cut(String(cString: ass), keeping: kept))))
            } else if let text = rect.pointee.text {
                texts.append(SubtitleLimits.cut(SubtitleText.lines(SubtitleLimits.cut(String(cString: text), keeping: kept))))
            } else if rect.pointee.type == SUBTITLE_BITMAP {
                pictures = true
            }
        }
        let text = texts.filter { !$0.isEmpty }.joined(separator: "\n")
        // A bitmap subtitle with no rectangles clears the screen: an empty cue that ends the one before.
        if text.isEmpty && !pictures && subtitle.num_rects > 0 { return [] }
        return [SubtitleCue(start: start, end: end, text: text.isEmpty ? nil : text)]
    }
}

/// A decoded subtitle as libavcodec gives it, freed once.
final class DecodedSubtitle {
    var value = AVSubtitle()

    deinit {
        avsubtitle_free(&value)
    }
}

extension SubtitleDecoder {
    /// The subtitle one packet holds, as libavcodec decodes it (nil: none).
    func decodeWhole(_ packet: Packet) -> DecodedSubtitle? {
        let decoded = DecodedSubtitle()
        var got: Int32 = 0
        guard avcodec_decode_subtitle2(codecContext, &decoded.value, &got, packet.pointer) >= 0, got != 0 else { return nil }
        return decoded
    }

    /// The size the decoder says its pictures are drawn on (0: unknown).
    var canvasSize: (width: Int32, height: Int32) {
        (codecContext.pointee.width, codecContext.pointee.height)
    }
}
