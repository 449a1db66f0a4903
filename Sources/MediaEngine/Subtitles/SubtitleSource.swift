import CFFmpeg
import Foundation
import MediaModel
import MediaTerminal

/// A subtitle track a player can show: a stream of the item's own file, or
/// of a subtitle file beside it (a sidecar, `--sub-file`).
public struct SubtitleSource: Sendable, Equatable {
    /// The file the track is in.
    public var path: String
    /// Its stream in that file.
    public var streamIndex: Int32
    /// Its place among that file's subtitle streams (the `si` of ffmpeg's
    /// `subtitles` filter).
    public var ordinal: Int
    /// Seconds to take from its times: the container's start (the item's
    /// own file, as its pictures are counted); 0 for a file of its own.
    public var offset: Double
    public var track: MediaTrack
    /// The canvas of a bitmap track that names no size: its file's largest
    /// video, else 720×576 (ffmpeg's choice).
    var canvas: (width: Int32, height: Int32) = (720, 576)

    public static func == (a: SubtitleSource, b: SubtitleSource) -> Bool {
        a.path == b.path && a.streamIndex == b.streamIndex && a.offset == b.offset && a.track == b.track
    }
}

/// The subtitle streams of a file: the item's own, read from its open
/// demuxer, or a subtitle file's, opened as a format context of its own
/// under the same rule as media (it may open nothing else).
enum SubtitleStreams {
    /// The subtitle streams of an open format context, numbered from `first`.
    static func list(_ context: UnsafeMutablePointer<AVFormatContext>, path: String, offset: Double, first: Int, file: String?) -> [SubtitleSource] {
        var sources: [SubtitleSource] = []
        var ordinal = 0
        var width: Int32 = 0, height: Int32 = 0
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let parameters = context.pointee.streams[index]?.pointee.codecpar.pointee, parameters.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
            width = max(width, parameters.width)
            height = max(height, parameters.height)
        }
        let canvas: (width: Int32, height: Int32) = width > 0 && height > 0 ? (width, height) : (720, 576)
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index], stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE else { continue }
            let id = stream.pointee.codecpar.pointee.codec_id
            let descriptor = avcodec_descriptor_get(id)
            let isBitmap = descriptor.map { $0.pointee.props & AV_CODEC_PROP_BITMAP_SUB != 0 } ?? false
            let track = MediaTrack(
                kind: .subtitle, number: first + sources.count,
                language: StreamTags.value("language", of: stream).map(DisplayWidth.singleLine), title: StreamTags.value("title", of: stream).map(DisplayWidth.singleLine),
                codec: String(cString: avcodec_get_name(id)), isBitmap: isBitmap, file: file
            )
            sources.append(SubtitleSource(path: path, streamIndex: Int32(index), ordinal: ordinal, offset: offset, track: track, canvas: canvas))
            ordinal += 1
        }
        return sources
    }

    /// A subtitle file's streams (SubRip, WebVTT, ASS); none when it is not
    /// one FFmpeg reads (said in `failure`).
    static func file(_ path: String, first: Int, language: String?) throws(FFmpegError) -> [SubtitleSource] {
        // Before FFmpeg opens it: its text demuxers read the whole file then.
        var info = stat()
        if stat(path, &info) == 0, Int64(info.st_size) > SubtitleLimits.fileBytes {
            throw FFmpegError(
                context: "cannot read the subtitles \((path as NSString).lastPathComponent)",
                message: "it is larger than \(SubtitleLimits.fileBytes >> 20) MiB"
            )
        }
        // Read from a mended copy where FFmpeg would miss its cues (UTF-16,
        // WebVTT's REGION and STYLE blocks, SubRip without numbers).
        let readable = SubtitleFileText.prepared(path)
        let name = (path as NSString).lastPathComponent
        let input: SubtitleInput
        do {
            input = try SubtitleInput(path: readable)
        } catch {
            throw FFmpegError(context: "cannot read the subtitles \(name)", message: error.message)
        }
        var sources = list(input.context, path: readable, offset: 0, first: first, file: name)
        if sources.isEmpty {
            throw FFmpegError(context: "cannot read the subtitles \(name)", message: "it holds no subtitles FFmpeg reads (SubRip, WebVTT, ASS)")
        }
        for index in sources.indices where sources[index].track.language == nil { sources[index].track.language = language }
        return sources
    }
}

/// A stream's metadata value by key (any case), if set and not empty.
enum StreamTags {
    static func value(_ key: String, of stream: UnsafeMutablePointer<AVStream>) -> String? {
        guard let entry = av_dict_get(stream.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return nil }
        let text = String(cString: value)
        return text.isEmpty || text == "und" ? nil : text
    }
}

/// A subtitle file, or the item's file read again for one subtitle stream:
/// opened by libavformat with the file protocol only and nothing opened
/// from inside it (a playlist named .srt is refused, as for media).
final class SubtitleInput {
    private let owner: FormatContext
    var context: UnsafeMutablePointer<AVFormatContext> { owner.pointer }
    private let policy: IOPolicy
    let name: String

    init(path: String) throws(FFmpegError) {
        av_log_set_level(AV_LOG_FATAL)
        name = (path as NSString).lastPathComponent
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw FFmpegError(context: "cannot read the subtitles \(name)", message: "it is not a regular file")
        }
        let policy = IOPolicy(allowed: path)
        self.policy = policy
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        if let context { mp_guard_io(context, policy.pointer) }
        var options: OpaquePointer?
        av_dict_set(&options, "protocol_whitelist", "file", 0)
        defer { av_dict_free(&options) }
        let opened = avformat_open_input(&context, path, nil, &options)
        try policy.check(name: name)
        if opened == mp_averror(EINVAL) || opened == mp_averror_invaliddata() {
            throw FFmpegError(context: "cannot read the subtitles \(name)", message: "it is not a subtitle format FFmpeg reads (SubRip, WebVTT, ASS)")
        }
        try check(opened, "cannot read the subtitles \(name)")
        guard let context else { throw FFmpegError(context: "cannot read the subtitles \(name)", message: "no format context") }
        owner = FormatContext(context, policy: policy)
        try check(avformat_find_stream_info(context, nil), "cannot read the subtitles \(name)")
        try policy.check(name: name)
    }

    /// The fonts the file carries (Matroska attachments), as the subtitles
    /// filter hands them to libass: by name, the bytes valid while the input is open.
    var attachedFonts: [(name: String, data: UnsafeRawBufferPointer)] {
        let types = ["font/ttf", "font/otf", "font/sfnt", "font/woff", "font/woff2", "application/font-sfnt", "application/font-woff", "application/x-truetype-font",
                     "application/vnd.ms-opentype", "application/x-font-ttf"]
        var fonts: [(String, UnsafeRawBufferPointer)] = []
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index], let parameters = stream.pointee.codecpar, parameters.pointee.codec_type == AVMEDIA_TYPE_ATTACHMENT,
                  let mime = av_dict_get(stream.pointee.metadata, "mimetype", nil, 0)?.pointee.value, types.contains(String(cString: mime).lowercased()),
                  let name = av_dict_get(stream.pointee.metadata, "filename", nil, AV_DICT_MATCH_CASE)?.pointee.value, let data = parameters.pointee.extradata
            else { continue }
            fonts.append((String(cString: name), UnsafeRawBufferPointer(start: data, count: Int(parameters.pointee.extradata_size))))
        }
        return fonts
    }

    /// Stream `index`, every other one discarded (an MP4 then skips their
    /// samples unread): a track's reader reads that track alone.
    func only(_ index: Int32) throws(FFmpegError) -> UnsafeMutablePointer<AVStream> {
        guard index >= 0, index < Int32(context.pointee.nb_streams), let stream = context.pointee.streams[Int(index)] else {
            throw FFmpegError(context: "cannot read the subtitles of \(name)", message: "no such stream")
        }
        for other in 0..<Int(context.pointee.nb_streams) where other != Int(index) {
            context.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL
        }
        return stream
    }

    /// Reads the next packet; false at the end.
    func read(into packet: Packet) throws(FFmpegError) -> Bool {
        let result = av_read_frame(context, packet.pointer)
        try policy.check(name: name)
        if result == FFmpegError.eof { return false }
        try check(result, "cannot read the subtitles \(name)")
        return true
    }
}
