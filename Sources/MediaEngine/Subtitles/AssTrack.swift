import CFFmpeg
import Foundation

/// One text subtitle track in libass, set up as libavfilter's `subtitles`
/// filter sets it up (the decoder's header, the file's attached fonts,
/// fontconfig's fonts, each decoded event at the packet's millisecond for
/// its length), but filled by the track's loader as it reads instead of by
/// reading the whole file again before the first picture. The loader adds
/// events on its thread while the video decoder thread renders: one lock.
final class AssTrack: @unchecked Sendable {
    /// libass's functions, loaded once, on the first track.
    static let library: Result<mp_ass_api, FFmpegError> = {
        var api = mp_ass_api()
        var reason = [CChar](repeating: 0, count: 256)
        guard mp_ass_load(&api, &reason, reason.count) == 0 else {
            let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(FFmpegError(context: "cannot draw subtitles", message: "\(why) (install libass: apt install libass9)"))
        }
        return .success(api)
    }()

    private let api: mp_ass_api
    private let lock = NSLock()
    private let handle: UnsafeMutableRawPointer
    private let renderer: UnsafeMutableRawPointer
    private var track: UnsafeMutableRawPointer?
    private var frameSize: (width: Int32, height: Int32)?
    private var fontsFound = false
    /// The script's height, which the sizes of its events are bounded by (`AssBounds`).
    private var scriptSize = ScriptSize([Substring]())

    init() throws(FFmpegError) {
        api = try Self.library.get()
        guard let handle = api.library_init() else { throw FFmpegError(context: "cannot draw subtitles", message: "libass did not start") }
        self.handle = handle
        withUnsafePointer(to: api) { mp_ass_silence($0, handle) }
        api.set_fonts_dir(handle, nil)
        api.set_extract_fonts(handle, 1)
        guard let renderer = api.renderer_init(handle) else {
            api.library_done(handle)
            throw FFmpegError(context: "cannot draw subtitles", message: "libass has no renderer")
        }
        self.renderer = renderer
        // Caches bounded: glyphs, and the bitmaps of pictures drawn (MB).
        api.set_cache_limits(renderer, 2_000, 64)
    }

    deinit {
        if let track { api.free_track(track) }
        api.renderer_done(renderer)
        api.library_done(handle)
    }

    /// Before any event: the decoder's header (styles) and the fonts the
    /// file carries, then fontconfig's.
    func configure(header: UnsafeRawBufferPointer?, fonts: [(name: String, data: UnsafeRawBufferPointer)]) {
        lock.withLock {
            guard track == nil, let made = api.new_track(handle) else { return }
            for font in fonts {
                api.add_font(handle, font.name, font.data.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(font.data.count))
            }
            // fontconfig's fonts are found once per renderer (its
            // configuration parsed anew each time); a file's own fonts
            // added since need it again.
            if !fontsFound || !fonts.isEmpty {
                api.set_fonts(renderer, nil, nil, 1, nil, 1)
                fontsFound = true
            }
            if let header, let base = header.baseAddress, header.count > 0 {
                let text = String(decoding: header, as: UTF8.self)
                let bounded = AssBounds.header(text)
                scriptSize = ScriptSize(AssBounds.lines(bounded))
                if bounded == text {
                    // Unchanged: libass gets the decoder's own bytes.
                    api.process_codec_private(made, base.assumingMemoryBound(to: CChar.self), Int32(header.count))
                } else {
                    let bytes = Array(bounded.utf8)
                    bytes.withUnsafeBufferPointer { buffer in
                        buffer.withMemoryRebound(to: CChar.self) { api.process_codec_private(made, $0.baseAddress, Int32($0.count)) }
                    }
                }
            }
            track = made
        }
    }

    /// A decoded subtitle's events, as the filter adds them: from the
    /// packet's time in milliseconds, for its display time.
    func add(_ subtitle: AVSubtitle) {
        let start = av_rescale_q(subtitle.pts, mp_av_time_base_q(), AVRational(num: 1, den: 1000))
        let duration = Int64(subtitle.end_display_time)
        lock.withLock {
            guard let track else { return }
            for index in 0..<Int(subtitle.num_rects) {
                guard let line = subtitle.rects[index]?.pointee.ass else { break }
                let length = strlen(line)
                // Short, without tags or breaks: libass gets the decoder's own bytes.
                if length <= SubtitleLimits.shownTextBytes, strchr(line, Int32(UInt8(ascii: "{"))) == nil, strchr(line, Int32(UInt8(ascii: "\\"))) == nil {
                    api.process_chunk(track, line, Int32(length), start, duration)
                    continue
                }
                let raw = UnsafeRawBufferPointer(start: line, count: length)
                let bytes = AssBounds.event(bytes: Array(raw), size: scriptSize)
                bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { api.process_chunk(track, $0.baseAddress, Int32($0.count), start, duration) }
                }
            }
        }
    }

    /// Lets go of every event (a track refused past its limits): nothing more is drawn.
    func clear() {
        lock.withLock {
            if let track { api.free_track(track) }
            track = nil
        }
    }

    /// libass's pictures at `now` (milliseconds) for a `width`×`height`
    /// frame, handed to `body` while they are valid.
    func render(now: Int64, width: Int32, height: Int32, _ body: (UnsafeMutablePointer<mp_ass_image>?) -> Void) {
        lock.withLock {
            guard let track else { return body(nil) }
            if frameSize == nil || frameSize! != (width, height) {
                api.set_frame_size(renderer, width, height)
                api.set_storage_size(renderer, width, height)
                // The subtitles filter's shaping: libass's simple shaper (its
                // `shaping` field is never set for that filter, so 0).
                api.set_shaper(renderer, 0)
                frameSize = (width, height)
            }
            var changed: Int32 = 0
            body(api.render_frame(renderer, track, now, &changed))
        }
    }
}
