import CFFmpeg
import Foundation
import MediaInterfaces
import MediaModel
import MediaTerminal

/// An opened media file (libavformat): its streams, and packets read in order.
/// `readPacket` blocks on I/O: call it from a thread of its own.
public final class Demuxer: @unchecked Sendable {
    /// Owns the format context: it is closed once, by the owner, whatever throws.
    private let owner: FormatContext
    var context: UnsafeMutablePointer<AVFormatContext> { owner.pointer }
    public let path: String
    /// The audio stream to play, if any (attached cover art never counts as
    /// video); one of the sound's own input when it comes apart (`addAudio`).
    public private(set) var audioStreamIndex: Int32?
    public let videoStreamIndex: Int32?

    /// Custom I/O over a byte source (nil for a file libavformat opens).
    private let io: ByteSourceIO?
    /// What the context may open by itself (the owner keeps it alive as
    /// long as the context).
    private let policy: IOPolicy
    /// The file's name, for messages.
    private let name: String

    /// A regular file only: FFmpeg's read of a FIFO or device would block
    /// forever (play, the background player, probes and browse's pictures
    /// all open files here).
    public convenience init(path: String) throws(FFmpegError) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            let name = (path as NSString).lastPathComponent
            let what = info.st_mode & S_IFMT == S_IFIFO ? "a FIFO" : info.st_mode & S_IFMT == S_IFDIR ? "a folder" : "a device or special file"
            throw FFmpegError(context: "cannot play \(name)", message: "it is \(what), not a media file")
        }
        try self.init(path: path, io: nil)
    }

    /// Reads from `source` (a download in progress, say) instead of a file.
    public convenience init(source: any ByteSource) throws(FFmpegError) {
        try self.init(path: source.name, io: ByteSourceIO(source: source))
    }

    /// An adaptive stream (HLS, DASH) libavformat fetches from its
    /// manifest: http(s) only, the page's headers to its own host only; the
    /// variant the best under `limits`, the others never fetched.
    /// `interruption` ends a blocked read (a stop).
    /// Without `video`, the picture's segments are not fetched at all (and
    /// the sound plays to its own end: libavformat's DASH reader ends with
    /// the stream it reads first).
    public convenience init(stream: RemoteStream, limits: VariantLimits = VariantLimits(), video: Bool = true, interruption: StreamInterruption? = nil) throws(FFmpegError) {
        try self.init(path: stream.url.absoluteString, io: nil, remote: (stream, limits, video, interruption))
    }

    private init(
        path: String, io: ByteSourceIO?, remote: (stream: RemoteStream, limits: VariantLimits, video: Bool, interruption: StreamInterruption?)? = nil
    ) throws(FFmpegError) {
        // FFmpeg's own log lines would land on the user's screen; our errors say it in one line.
        av_log_set_level(AV_LOG_FATAL)
        self.path = path
        self.io = io
        let name = remote.map { $0.stream.url.lastPathComponent.isEmpty ? ($0.stream.url.host ?? "stream") : $0.stream.url.lastPathComponent }
            ?? (path as String).split(separator: "/").last.map(String.init) ?? path
        self.name = name
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        if let io {
            context?.pointee.pb = io.context
            // Over a download, every packet probed is waited for: a format
            // whose packets carry no timestamps (WAV) would otherwise make
            // the stream probe read 50 of them, a second of audio, before
            // anything plays. Reading fewer changes no decoded sample.
            context?.pointee.max_ts_probe = 4
            if io.source.seeksByEstimate { context?.pointee.flags |= AVFMT_FLAG_FAST_SEEK }
        }
        // FFmpeg opens nothing by itself: a local file may be reopened (the
        // image2 demuxer does, per frame), a download nothing at all; only
        // the file protocol exists for it.
        let sent = remote?.stream.headers.sorted { $0.key < $1.key } ?? []
        let cookies = sent.filter { $0.key.lowercased() == "cookie" }.map { "\($0.key): \($0.value)\r\n" }.joined()
        let policy = IOPolicy(allowed: io == nil && remote == nil ? path : nil, remoteHost: remote?.stream.url.host, cookie: cookies.isEmpty ? nil : cookies)
        self.policy = policy
        if let context { mp_guard_io(context, policy.pointer) }
        if let context, let interruption = remote?.interruption { mp_interrupt_install(context, interruption.flag) }
        var options: OpaquePointer?
        if remote != nil {
            av_dict_set(&options, "protocol_whitelist", "http,https,tcp,tls,crypto", 0)
            // A stalled server fails the read instead of holding it forever.
            av_dict_set(&options, "rw_timeout", "30000000", 0)
            // The cookies go apart (the policy adds them on the page's host,
            // with no redirect followed): libavformat's http sends `headers`
            // on to wherever a redirect points.
            let headers = sent.filter { $0.key.lowercased() != "cookie" }.map { "\($0.key): \($0.value)\r\n" }.joined()
            if !headers.isEmpty { av_dict_set(&options, "headers", headers, 0) }
        } else {
            av_dict_set(&options, "protocol_whitelist", "file", 0)
        }
        defer { av_dict_free(&options) }
        // A failed open frees the context (but never our I/O context).
        let opened = avformat_open_input(&context, path, nil, &options)
        try policy.check(name: name)
        // No format recognised: say what that means, not FFmpeg's "Invalid argument".
        if (opened == mp_averror(EINVAL) || opened == mp_averror_invaliddata()), io?.failure == nil {
            throw FFmpegError(context: "cannot play \(name)", message: "it is not a media file FFmpeg can read (no known audio, video or picture format)")
        }
        try Self.check(opened, io: io, name: name, "cannot open \(name)")
        guard let context else { throw FFmpegError(context: "cannot open \(name)", message: "no format context") }
        let owner = FormatContext(context, policy: policy)
        self.owner = owner
        let found = avformat_find_stream_info(context, nil)
        try policy.check(name: name)
        try Self.check(found, io: io, name: name, "cannot read the streams of \(name)")
        if let remote {
            (audioStreamIndex, videoStreamIndex) = Self.chooseVariant(context, limits: remote.limits, video: remote.video)
            if audioStreamIndex == nil && videoStreamIndex == nil {
                throw FFmpegError(context: "cannot play \(name)", message: "no audio or video stream")
            }
            return
        }
        let audio = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        audioStreamIndex = audio >= 0 ? audio : nil
        var video: Int32 = -1
        // The best video stream that is a real picture sequence, not cover art.
        for index in 0..<Int32(context.pointee.nb_streams) {
            let stream = context.pointee.streams[Int(index)]!
            guard stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { continue }
            video = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, index, -1, nil, 0)
            break
        }
        videoStreamIndex = video >= 0 ? video : nil
        if audioStreamIndex == nil && videoStreamIndex == nil {
            throw FFmpegError(context: "cannot play \(name)", message: "no audio or video stream")
        }
    }

    /// An adaptive stream's variant: the video of the highest bandwidth
    /// within the limits (else the lowest there is), the best audio with
    /// it; every other stream discarded, so its segments are never fetched.
    private static func chooseVariant(_ context: UnsafeMutablePointer<AVFormatContext>, limits: VariantLimits, video wanted: Bool) -> (audio: Int32?, video: Int32?) {
        var videos: [(index: Int32, bandwidth: Int64, height: Int)] = []
        for index in 0..<Int32(context.pointee.nb_streams) {
            let stream = context.pointee.streams[Int(index)]!
            let parameters = stream.pointee.codecpar.pointee
            guard parameters.codec_type == AVMEDIA_TYPE_VIDEO, stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { continue }
            // HLS says a variant's bandwidth in its metadata, DASH in the bit rate.
            let stated = StreamTags.value("variant_bitrate", of: stream).flatMap { Int64($0) }
            videos.append((index, max(stated ?? 0, parameters.bit_rate), Int(parameters.height)))
        }
        let fitting = videos.filter { limits.allows(bandwidth: $0.bandwidth, height: $0.height) }
        let chosen: Int32? = if fitting.isEmpty {
            videos.min { ($0.bandwidth, $0.height) < ($1.bandwidth, $1.height) }?.index
        } else {
            fitting.max { ($0.bandwidth, $0.height) < ($1.bandwidth, $1.height) }?.index
        }
        let audio = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, chosen ?? -1, nil, 0)
        let audioIndex: Int32? = audio >= 0 ? audio : nil
        let playedVideo = wanted || audioIndex == nil ? chosen : nil
        for index in 0..<Int32(context.pointee.nb_streams) where index != playedVideo && index != audioIndex {
            context.pointee.streams[Int(index)]!.pointee.discard = AVDISCARD_ALL
        }
        return (audioIndex, playedVideo)
    }

    /// `check`, except that a failed read of a byte source is reported in
    /// the source's words (a download error), not as FFmpeg's "I/O error".
    private static func check(_ code: Int32, io: ByteSourceIO?, name: String, _ context: @autoclosure () -> String) throws(FFmpegError) {
        if code < 0, let failure = io?.failure { throw FFmpegError(inputFailure: failure, name: name) }
        try MediaEngine.check(code, context())
    }


    /// The audio streams, in the file's order (cover art aside); with the
    /// sound apart, its input's.
    var audioStreams: [(index: Int32, language: String?, title: String?, codec: String)] {
        if let apart { return apart.sound.audioStreams.map { ($0.index + Self.apartBase, $0.language, $0.title, $0.codec) } }
        return (0..<Int32(context.pointee.nb_streams)).compactMap { index in
            let stream = stream(index)
            guard stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
            return (
                index, StreamTags.value("language", of: stream).map(DisplayWidth.singleLine), StreamTags.value("title", of: stream).map(DisplayWidth.singleLine),
                String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
            )
        }
    }

    func stream(_ index: Int32) -> UnsafeMutablePointer<AVStream> {
        if index >= Self.apartBase, let apart { return apart.sound.stream(index - Self.apartBase) }
        return context.pointee.streams[Int(index)]!
    }

    /// Duration in seconds, when the container says.
    public var duration: Double? {
        if let apart, let own = ownDuration, let sound = apart.sound.duration { return max(own, sound) }
        return ownDuration ?? apart?.sound.duration
    }

    private var ownDuration: Double? {
        let value = context.pointee.duration
        // A container's claim is checked: 2^63 µs is no length (it trapped
        // every conversion after it).
        return value == mp_av_nopts_value() ? nil : CheckedNumber.duration(Double(value) / Double(AV_TIME_BASE))
    }

    /// The container's chapters (mp4, mkv, ogg, ID3 CHAP), by start; a
    /// chapter's time checked as any number from a file is.
    public var chapters: [Chapter] {
        let count = Int(context.pointee.nb_chapters)
        guard count > 0, count <= 10_000, let list = context.pointee.chapters else { return [] }
        var chapters: [Chapter] = []
        for index in 0..<count {
            guard let chapter = list[index] else { continue }
            let base = chapter.pointee.time_base
            guard base.den != 0, let start = CheckedNumber.time(Double(chapter.pointee.start) * Double(base.num) / Double(base.den)) else { continue }
            let entry = chapter.pointee.metadata.flatMap { av_dict_get($0, "title", nil, 0) }
            let title = entry.flatMap { $0.pointee.value.map { String(cString: $0) } } ?? "Chapter \(index + 1)"
            chapters.append(Chapter(start: start, title: title))
        }
        return chapters.sorted { $0.start < $1.start }
    }

    /// Reads the next packet into `packet`; false at the end of the file
    /// (of both inputs, with the sound apart: their packets interleaved by
    /// time, the sound's streams numbered from `apartBase`).
    func readPacket(into packet: Packet) throws(FFmpegError) -> Bool {
        guard let apart else { return try readOwnPacket(into: packet) }
        if apart.ownNext == nil, !apart.ownEnded {
            let next = Packet()
            if try readOwnPacket(into: next) { apart.ownNext = next } else { apart.ownEnded = true }
        }
        if apart.soundNext == nil, !apart.soundEnded {
            let next = Packet()
            if try apart.sound.readOwnPacket(into: next) { apart.soundNext = next } else { apart.soundEnded = true }
        }
        let takeSound: Bool
        switch (apart.ownNext, apart.soundNext) {
        case (nil, nil): return false
        case (nil, _?): takeSound = true
        case (_?, nil): takeSound = false
        case let (own?, sound?): takeSound = apart.sound.seconds(of: sound) < seconds(of: own)
        }
        let taken = takeSound ? apart.soundNext! : apart.ownNext!
        av_packet_move_ref(packet.pointer, taken.pointer)
        if takeSound {
            packet.pointer.pointee.stream_index += Self.apartBase
            apart.soundNext = nil
        } else {
            apart.ownNext = nil
        }
        return true
    }

    private func readOwnPacket(into packet: Packet) throws(FFmpegError) -> Bool {
        let result = av_read_frame(context, packet.pointer)
        try policy.check(name: name)
        if result == FFmpegError.eof, io?.failure == nil { return false }
        try Self.check(result, io: io, name: name, "cannot read \(name)")
        return true
    }

    /// A packet's media time in its own input (its decoding time, else
    /// its presentation time; none: at once).
    private func seconds(of packet: Packet) -> Double {
        let pointer = packet.pointer.pointee
        let stamp = pointer.dts != mp_av_nopts_value() ? pointer.dts : pointer.pts
        guard stamp != mp_av_nopts_value(), pointer.stream_index >= 0, pointer.stream_index < Int32(context.pointee.nb_streams) else { return -.infinity }
        let base = stream(pointer.stream_index).pointee.time_base
        guard base.den != 0 else { return -.infinity }
        return Double(stamp) * Double(base.num) / Double(base.den) - startTime
    }

    /// Where media time 0 is in the file's timestamps, in seconds (as
    /// `ffmpeg` does, output times count from the container's start time).
    var startTime: Double {
        let value = context.pointee.start_time
        return value == mp_av_nopts_value() ? 0 : Double(value) / Double(AV_TIME_BASE)
    }

    /// The sound's own start time: its input's, when it comes apart (as
    /// `ffmpeg -i video -i audio` counts each input from its own start).
    var audioStartTime: Double { apart?.sound.startTime ?? startTime }

    /// The sound from an input of its own (a site's best video and best
    /// audio as two files), played with this one's pictures as one item.
    private final class Apart {
        let sound: Demuxer
        var ownNext: Packet?
        var soundNext: Packet?
        var ownEnded = false
        var soundEnded = false

        init(sound: Demuxer) {
            self.sound = sound
        }
    }

    private var apart: Apart?
    /// Stream numbers from here on are the sound input's.
    static let apartBase: Int32 = 1 << 16

    /// Plays the sound of `sound` (its best audio stream) with this input's
    /// pictures; this input's own sound, if any, is left aside.
    public func addAudio(from sound: Demuxer) {
        guard let index = sound.audioStreamIndex else { return }
        apart = Apart(sound: sound)
        audioStreamIndex = index + Self.apartBase
    }

    /// A single picture rather than a video: an image demuxer (PNG, JPEG,
    /// WebP ... read as `*_pipe` or `image2`), or a GIF without audio.
    public var isStillImage: Bool {
        guard audioStreamIndex == nil, videoStreamIndex != nil else { return false }
        let name = String(cString: context.pointee.iformat.pointee.name)
        return name.hasSuffix("_pipe") || name == "image2" || name == "gif" || name == "webp"
    }

    /// Degrees to turn the picture clockwise to show it upright (a phone's
    /// portrait video carries this as a display matrix).
    public var rotation: Int {
        guard let index = videoStreamIndex else { return 0 }
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream(index), AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return 0 }
        let angle = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard angle.isFinite else { return 0 }
        // The matrix gives the counter-clockwise angle; round to whole turns of 90°.
        let degrees = Int((-angle / 90).rounded()) * 90
        return ((degrees % 360) + 360) % 360
    }

    /// Seeks to `seconds` of media time (the keyframe at or before it).
    func seek(to seconds: Double) throws(FFmpegError) {
        // Clamped before the conversion: a request can carry any finite number.
        let micro = (seconds + startTime) * Double(AV_TIME_BASE)
        let target = micro.isNaN ? 0 : Int64(min(max(micro, -9.0e18), 9.0e18))
        try Self.check(avformat_seek_file(context, -1, Int64.min, target, target, 0), io: io, name: name, "cannot seek in \(name)")
        if let apart {
            apart.ownNext = nil
            apart.soundNext = nil
            apart.ownEnded = false
            apart.soundEnded = false
            try apart.sound.seek(to: seconds)
        }
    }
}

/// An open AVFormatContext, closed when the last reference goes: the one
/// place that frees it, so a throwing initializer cannot free it twice.
final class FormatContext: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    /// Its `opaque` points here: freed only after the context is closed.
    private let policy: IOPolicy

    init(_ pointer: UnsafeMutablePointer<AVFormatContext>, policy: IOPolicy) {
        self.pointer = pointer
        self.policy = policy
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&owned)
        withExtendedLifetime(policy) {}
    }
}

/// The rule a format context's own opens follow (`mp_io_policy`), in memory
/// that stays put for the context's life.
final class IOPolicy: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<mp_io_policy>
    private let allowed: UnsafeMutablePointer<CChar>?

    private let host: UnsafeMutablePointer<CChar>?
    private let cookie: UnsafeMutablePointer<CChar>?

    init(allowed path: String?, remoteHost: String? = nil, cookie cookieLines: String? = nil) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: mp_io_policy())
        allowed = path.map { strdup($0) }
        host = remoteHost.map { strdup($0) }
        cookie = cookieLines.map { strdup($0) }
        pointer.pointee.allowed = UnsafePointer(allowed)
        pointer.pointee.remote = remoteHost == nil ? 0 : 1
        pointer.pointee.host = UnsafePointer(host)
        pointer.pointee.cookie = UnsafePointer(cookie)
    }

    deinit {
        free(allowed)
        free(host)
        free(cookie)
        pointer.deallocate()
    }

    /// Throws when FFmpeg tried to open something else: the file is a
    /// playlist or a reference, which mediaplay does not follow.
    func check(name: String) throws(FFmpegError) {
        guard pointer.pointee.refused != 0 else { return }
        let url = withUnsafeBytes(of: pointer.pointee.refusedURL) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if pointer.pointee.remote != 0 {
            throw FFmpegError(
                context: "cannot play \(name)",
                message: "the stream asked for \(url.isEmpty ? "another file" : url.redactingUserinfo), which is not an http or https URL; an adaptive stream's parts come from the web only"
            )
        }
        throw FFmpegError(
            context: "cannot play \(name)",
            message: "it is a playlist or a reference to other media (it asked for \(url.isEmpty ? "another file" : url.redactingUserinfo)), which mediaplay does not follow; point the feed at the media itself"
        )
    }
}

/// The caps on an adaptive stream's variant (`[playback] max-height`,
/// `max-bitrate`): nil, none.
public struct VariantLimits: Sendable, Equatable {
    public var maximumHeight: Int?
    /// Bits per second.
    public var maximumBitrate: Int64?

    public init(maximumHeight: Int? = nil, maximumBitrate: Int64? = nil) {
        self.maximumHeight = maximumHeight
        self.maximumBitrate = maximumBitrate
    }

    /// A variant that does not say its height or bandwidth passes that cap.
    func allows(bandwidth: Int64, height: Int) -> Bool {
        if let maximumHeight, height > 0, height > maximumHeight { return false }
        if let maximumBitrate, bandwidth > 0, bandwidth > maximumBitrate { return false }
        return true
    }
}

/// A stop for an adaptive stream's network reads: set once, libavformat's
/// interrupt callback ends every read after it.
public final class StreamInterruption: @unchecked Sendable {
    let flag: UnsafeMutablePointer<Int32>

    public init() {
        flag = .allocate(capacity: 1)
        flag.initialize(to: 0)
    }

    deinit { flag.deallocate() }

    public func interrupt() { mp_interrupt_set(flag) }
}
