import CFFmpeg
import Foundation
@testable import MediaEngine
import MediaInterfaces
import MediaModel
import Testing
import TestKit

/// Subtitles against the ffmpeg CLI: each text format's cues as ffmpeg
/// converts them to SubRip, text drawn into pictures as its `subtitles`
/// filter draws them, pictures overlaid as `-filter_complex overlay` does.
@Suite struct SubtitleTests {
    /// Our reading of a file's subtitle track `number` (1-based, its own first).
    static func ourCues(_ path: String, subtitleFiles: [String] = [], number: Int = 1) throws -> [SubtitleCue] {
        var sources: [SubtitleSource] = []
        if !subtitleFiles.contains(path), let demuxer = try? Demuxer(path: path) {
            sources = SubtitleStreams.list(demuxer.context, path: path, offset: demuxer.startTime, first: 1, file: nil)
        }
        for file in subtitleFiles { sources += try SubtitleStreams.file(file, first: sources.count + 1, language: nil) }
        let source = try #require(sources.first { $0.track.number == number })
        let timeline = SubtitleTimeline()
        try SubtitleLoader.load(source, into: timeline)
        return timeline.allCues
    }

    static func sameCues(_ ours: [SubtitleCue], _ theirs: [(start: Double, end: Double, text: String)]) -> Bool {
        guard ours.count == theirs.count else { return false }
        return zip(ours, theirs).allSatisfy { abs($0.start - $1.start) < 0.0015 && abs($0.end - $1.end) < 0.0015 && $0.text == $1.text }
    }

    @Test(arguments: ["mov_text", "subrip", "ass", "webvtt"])
    func aTracksCuesAreFfmpegsConversion(_ codec: String) async throws {
        let video = try await SubtitleFixtures.video(with: codec)
        let ours = try Self.ourCues(video)
        let theirs = try await SubtitleFixtures.ffmpegCues(video)
        #expect(Self.sameCues(ours, theirs), "\(codec): ours \(ours), ffmpeg's \(theirs)")
        // And what the fixtures say, tags removed, two lines kept.
        #expect(ours.map(\.text) == SubtitleFixtures.cues.map(\.text), "\(codec)")
    }

    @Test(arguments: ["srt", "vtt", "ass"])
    func aSubtitleFilesCuesAreFfmpegsConversion(_ format: String) async throws {
        let file = try SubtitleFixtures.file(format)
        let ours = try Self.ourCues(file, subtitleFiles: [file])
        let theirs = try await SubtitleFixtures.ffmpegCues(file)
        #expect(Self.sameCues(ours, theirs), "\(format): ours \(ours), ffmpeg's \(theirs)")
        #expect(zip(ours, SubtitleFixtures.cues).allSatisfy { abs($0.start - $1.start) < 1e-6 && abs($0.end - $1.end) < 1e-6 })
    }

    /// Plays `path` untimed into frame hashes.
    static func recordedFrames(_ path: String, tracks: TrackSettings = TrackSettings(), subtitleFiles: [String] = []) async throws -> [String] {
        let folder = try TemporaryDirectory()
        let out = folder.path + "/out.framemd5"
        var options = PlaybackOptions()
        options.clock = .untimed
        options.audio = false
        options.tracks = tracks
        options.subtitleFiles = subtitleFiles.map { SidecarSubtitles.File(path: $0) }
        let player = Player(path: path, audioSink: nil, videoSink: try FrameHashSink(path: out), options: options)
        player.play()
        #expect(await offPool { player.waitUntilFinished() } == .ended)
        return try Recorded.hashes(out)
    }

    @Test(arguments: ["mov_text", "ass"])
    func textIsDrawnAsFfmpegsSubtitlesFilterDrawsIt(_ codec: String) async throws {
        let video = try await SubtitleFixtures.video(with: codec)
        let ours = try await Self.recordedFrames(video)
        let theirs = try await Fixtures.referenceFrameHashes(video, filters: "subtitles=\(video)")
        let plain = try await Fixtures.referenceFrameHashes(video)
        #expect(!ours.isEmpty && ours == theirs, "\(codec): frame for frame")
        #expect(zip(theirs, plain).filter { $0 != $1 }.count == 45, "the cues cover 45 of the 75 frames")
        #expect(try await Self.recordedFrames(video, tracks: TrackSettings(subtitle: .off)) == plain, "--sid no: plain decoding")
    }

    @Test func aSubtitleFileIsDrawnAsFfmpegDrawsIt() async throws {
        let video = try await SubtitleFixtures.plainVideo()
        let file = try SubtitleFixtures.file("ass")
        let ours = try await Self.recordedFrames(video, subtitleFiles: [file])
        #expect(ours == (try await Fixtures.referenceFrameHashes(video, filters: "subtitles=\(file)")))
    }

    /// The delay moves what is drawn: 0.3 s later is the same as a file whose cues are 0.3 s later.
    @Test func aDelayMovesTheDrawnSubtitles() async throws {
        let video = try await SubtitleFixtures.plainVideo()
        let file = try SubtitleFixtures.file("srt")
        let ours = try await Self.recordedFrames(video, tracks: TrackSettings(subtitleDelay: 0.4), subtitleFiles: [file])
        let folder = try TemporaryDirectory()
        let later = folder.path + "/later.srt"
        try Data(SubtitleFixtures.srt.replacingOccurrences(of: "00:00:00,500", with: "00:00:00,900").replacingOccurrences(of: "00:00:01,500", with: "00:00:01,900")
            .replacingOccurrences(of: "00:00:01,800", with: "00:00:02,200").replacingOccurrences(of: "00:00:02,600", with: "00:00:03,000").utf8).write(to: URL(fileURLWithPath: later))
        #expect(ours == (try await Fixtures.referenceFrameHashes(video, filters: "subtitles=\(later)")))
    }

    /// A DVD subtitle track (two pictures with a palette) muxed beside the video.
    static func bitmapVideo() async throws -> String {
        let name = "subs-dvdsub.mkv"
        let path = Fixtures.folder + "/" + name
        if FileManager.default.fileExists(atPath: path) { return path }
        let folder = try TemporaryDirectory()
        let track = folder.path + "/track.mkv"
        try DVDSubtitleWriter.write(track, width: 320, height: 240, pictures: [
            (start: 500, duration: 1000, x: 40, y: 150, width: 200, height: 50, color: 0xFF30_80FF),
            (start: 1800, duration: 800, x: 10, y: 10, width: 100, height: 40, color: 0x80FF_FF00),
        ])
        return try await Fixtures.make(name, ["-i", try await SubtitleFixtures.plainVideo(), "-i", track, "-map", "0:v", "-map", "1", "-c", "copy"])
    }

    @Test func picturesAreOverlaidAsFfmpegOverlaysThem() async throws {
        let video = try await Self.bitmapVideo()
        let ours = try await Self.recordedFrames(video)
        let result = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", video, "-filter_complex", "[0:v][0:s]overlay", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        let theirs = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        let plain = try await Fixtures.referenceFrameHashes(video)
        // ffmpeg goes on past the video's last picture (its last canvas
        // is pushed at the subtitle stream's end): pictures up to the video's end are compared.
        #expect(ours.count == plain.count && ours == Array(theirs.prefix(ours.count)), "frame for frame")
        #expect(zip(ours, plain).filter { $0 != $1 }.count == 45, "two pictures over 45 frames")
        // A bitmap track has no text.
        #expect(try Self.ourCues(video).allSatisfy { $0.text == nil })
    }

    @Test func sidecarsAreFoundByTheItemsName() throws {
        let folder = try TemporaryDirectory()
        for name in ["movie.mp4", "movie.srt", "movie.en.srt", "movie.pt-BR.vtt", "movie.ass", "movie.srt.bak", "other.srt", "movie.extra.long.srt", "movies.srt"] {
            #expect(FileManager.default.createFile(atPath: folder.path + "/" + name, contents: Data()))
        }
        let found = SidecarSubtitles.find(besides: folder.path + "/movie.mp4")
        #expect(found.map { ($0.path as NSString).lastPathComponent } == ["movie.ass", "movie.srt", "movie.en.srt", "movie.pt-BR.vtt"])
        #expect(found.map(\.language) == [nil, nil, "en", "pt-br"])
    }

    @Test func tracksAreChosenByNumberLanguageOrFirst() {
        let tracks = [MediaTrack(kind: .subtitle, number: 1, language: "eng", codec: "subrip"), MediaTrack(kind: .subtitle, number: 2, language: "ger", codec: "subrip")]
        #expect(TrackChoice.choose(.auto, languages: ["de"], among: tracks) == 1, "de is ger")
        #expect(TrackChoice.choose(.auto, languages: ["fr", "en"], among: tracks) == 0)
        #expect(TrackChoice.choose(.number(2), languages: [], among: tracks) == 1)
        #expect(TrackChoice.choose(.number(3), languages: [], among: tracks) == nil)
        #expect(TrackChoice.choose(.off, languages: ["en"], among: tracks) == nil)
        #expect(TrackChoice.matches("pt-BR", "pt") && !TrackChoice.matches(nil, "en"))
    }

    @Test func theTimelineFindsOverlappingAndOpenCues() {
        let timeline = SubtitleTimeline()
        timeline.add(SubtitleCue(start: 1, end: 5, text: "long"))
        timeline.add(SubtitleCue(start: 2, end: 3, text: "short"))
        timeline.add(SubtitleCue(start: 6, end: 6, text: "until the next"))
        timeline.add(SubtitleCue(start: 9, end: 9, text: nil))
        #expect(timeline.text(at: 0.5) == nil)
        #expect(timeline.text(at: 2.5) == "long\nshort")
        #expect(timeline.text(at: 4) == "long")
        #expect(timeline.text(at: 8.9) == "until the next")
        #expect(timeline.text(at: 9.5) == nil, "a picture's clear ends the cue before it")
        // A thousand cues: each lookup is a search, not a walk.
        let film = SubtitleTimeline()
        for index in 0..<100_000 { film.add(SubtitleCue(start: Double(index), end: Double(index) + 0.5, text: "\(index)")) }
        #expect(film.text(at: 54_321.25) == "54321" && film.text(at: 54_321.75) == nil)
    }
}

/// Writes DVD subtitles (libavcodec's dvdsub encoder) to a Matroska file:
/// each picture a filled box with a black border, in `color` (ARGB).
enum DVDSubtitleWriter {
    struct Failure: Error {}

    static func write(_ path: String, width: Int32, height: Int32, pictures: [(start: Int64, duration: Int64, x: Int32, y: Int32, width: Int32, height: Int32, color: UInt32)]) throws {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_DVD_SUBTITLE), var context = Optional(avcodec_alloc_context3(codec)), let encoder = context else { throw Failure() }
        defer { avcodec_free_context(&context) }
        encoder.pointee.width = width
        encoder.pointee.height = height
        encoder.pointee.time_base = AVRational(num: 1, den: 1000)
        guard avcodec_open2(encoder, codec, nil) >= 0 else { throw Failure() }
        var output: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_alloc_output_context2(&output, nil, "matroska", path) >= 0, let output, let stream = avformat_new_stream(output, nil) else { throw Failure() }
        defer { avformat_free_context(output) }
        avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
        stream.pointee.time_base = AVRational(num: 1, den: 1000)
        guard avio_open(&output.pointee.pb, path, AVIO_FLAG_WRITE) >= 0, avformat_write_header(output, nil) >= 0 else { throw Failure() }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for picture in pictures {
            var subtitle = AVSubtitle()
            let rect = av_mallocz(MemoryLayout<AVSubtitleRect>.size)!.assumingMemoryBound(to: AVSubtitleRect.self)
            rect.pointee.type = SUBTITLE_BITMAP
            (rect.pointee.x, rect.pointee.y, rect.pointee.w, rect.pointee.h) = (picture.x, picture.y, picture.width, picture.height)
            rect.pointee.nb_colors = 4
            let (w, h) = (Int(picture.width), Int(picture.height))
            let pixels = av_malloc(w * h)!.assumingMemoryBound(to: UInt8.self)
            for y in 0..<h { for x in 0..<w { pixels[y * w + x] = (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) ? 2 : 1 } }
            rect.pointee.data.0 = pixels
            rect.pointee.linesize.0 = Int32(w)
            let palette = av_mallocz(1024)!.assumingMemoryBound(to: UInt32.self)
            palette[1] = picture.color
            palette[2] = 0xFF00_0000
            palette[3] = 0xFFFF_FFFF
            rect.pointee.data.1 = UnsafeMutableRawPointer(palette).assumingMemoryBound(to: UInt8.self)
            let rects = av_malloc(MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.size)!.assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self)
            rects[0] = rect
            subtitle.num_rects = 1
            subtitle.rects = rects
            subtitle.end_display_time = UInt32(picture.duration)
            subtitle.pts = picture.start * 1000
            let size = avcodec_encode_subtitle(encoder, &buffer, Int32(buffer.count), &subtitle)
            avsubtitle_free(&subtitle)
            guard size > 0, var packet = Optional(av_packet_alloc()), let made = packet else { throw Failure() }
            defer { av_packet_free(&packet) }
            av_new_packet(made, size)
            buffer.withUnsafeBytes { bytes in if let base = bytes.baseAddress { _ = memcpy(made.pointee.data, base, Int(size)) } }
            made.pointee.pts = picture.start
            made.pointee.dts = picture.start
            made.pointee.duration = picture.duration
            guard av_interleaved_write_frame(output, made) >= 0 else { throw Failure() }
        }
        guard av_write_trailer(output) >= 0 else { throw Failure() }
        avio_closep(&output.pointee.pb)
    }
}
