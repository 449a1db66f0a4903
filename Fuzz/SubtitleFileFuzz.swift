import CFFmpeg
import Foundation
@testable import MediaEngine

// libFuzzer target: a hostile subtitle file (the first byte picks SubRip,
// ASS, SSA or WebVTT by its name), read as a player reads a sidecar or a
// feed's link: its streams listed, its track loaded into a timeline and a
// libass track under `SubtitleLimits`, then drawn into a picture at a few
// times and looked up as the terminal shows it. Run with a 1 s timeout and
// a 256 MB allocation limit: no input may cost more.

let extensions = ["srt", "ass", "ssa", "vtt"]
let scratch = "/dev/shm/mediaplay-fuzz-subtitles-\(getpid())"

/// The picture subtitles are drawn into: 4:2:0 as most video is.
let picture: Frame = {
    let frame = Frame()
    frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
    frame.pointer.pointee.width = 320
    frame.pointer.pointee.height = 240
    _ = av_frame_get_buffer(frame.pointer, 0)
    return frame
}()

/// One libass library and renderer for every input (its fonts are found
/// once): each input's track is made anew on it.
let ass = try? AssTrack()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSubtitleFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 1 else { return 0 }
    let path = scratch + "." + extensions[Int(data[0]) % extensions.count]
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data + 1, count: size - 1)) else { return 0 }
    defer { unlink(path) }
    guard let sources = try? SubtitleStreams.file(path, first: 1, language: nil) else { return 0 }
    for source in sources.prefix(2) where !source.track.isBitmap {
        let timeline = SubtitleTimeline()
        ass?.clear()
        try? SubtitleLoader.load(source, into: timeline, ass: ass)
        for cue in timeline.allCues.prefix(3) {
            _ = timeline.text(at: cue.start)
            ass?.render(now: Int64(cue.start * 1000), width: 320, height: 240) { images in
                AssBlend.blend(images, into: picture.pointer)
            }
        }
    }
    return 0
}
