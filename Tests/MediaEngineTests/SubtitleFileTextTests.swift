import Foundation
@testable import MediaEngine
import MediaModel
import Testing
import TestKit

/// Subtitle files FFmpeg 5's demuxers miss (issue #44): WebVTT with
/// regions, styles and notes, SubRip without numbers or with loose times,
/// UTF-16 and UTF-32. Read from a mended copy, their cues are what the
/// ffmpeg CLI reads from the same cues written plainly; a file that still
/// gives nothing says so.
@Suite struct SubtitleFileTextTests {
    static let plainVTT = """
    WEBVTT

    1
    00:00:01.000 --> 00:00:02.500 align:left position:10%,line-left size:35%
    <v Fred>Hi, my name is Fred

    intro
    00:02.500 --> 00:00:04.000 line:0 align:middle
    <c.yellow>Second</c> &amp; cue

    00:00:05.000 --> 00:00:06.000
    Third

    """

    static let richVTT = """
    WEBVTT - with regions and styles
    Kind: captions
    Language: en

    REGION
    id:fred
    width:40%
    lines:3
    regionanchor:0%,100%
    viewportanchor:10%,90%
    scroll:up

    STYLE
    ::cue {
      color: yellow;
    }
    ::cue(b) { color: red }

    NOTE This is a note
    spanning two lines

    1
    00:00:01.000 --> 00:00:02.500 align:left position:10%,line-left size:35%
    <v Fred>Hi, my name is Fred

    NOTE another

    intro
    00:02.500 --> 00:00:04.000 line:0 align:middle
    <c.yellow>Second</c> &amp; cue

    00:00:05.000 --> 00:00:06.000
    Third

    """

    static let plainSRT = "1\n00:00:01,000 --> 00:00:02,500\nFirst line\n\n2\n00:01:03,250 --> 00:01:04,000\nSecond\ntwo lines\n\n3\n01:00:00,000 --> 01:00:01,000\nLast\n"
    static let looseSRT = "\n00:00:01,000 --> 00:00:02,500\nFirst line\n\n01:03.250-->01:04,000\nSecond\ntwo lines\n\n1:00:00.000 --> 1:00:01.000\nLast\n"

    static func wide(_ text: String, utf32: Bool, mark: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        if mark { bytes += utf32 ? [0xFF, 0xFE, 0, 0] : [0xFF, 0xFE] }
        if utf32 {
            for scalar in text.unicodeScalars {
                for shift in [0, 8, 16, 24] { bytes.append(UInt8(truncatingIfNeeded: scalar.value >> UInt32(shift))) }
            }
        } else {
            for unit in text.utf16 { bytes += [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)] }
        }
        return bytes
    }

    /// Each odd file against ffmpeg's reading of its plain twin.
    @Test(arguments: [
        ("regions.vtt", "vtt"), ("numberless.srt", "srt"), ("utf32-mark.srt", "srt"), ("utf16-mark.srt", "srt"),
        ("utf16.srt", "srt"), ("utf32-mark.vtt", "vtt"),
    ])
    func cuesAreFfmpegsOfThePlainTwin(name: String, format: String) async throws {
        let folder = try TemporaryDirectory()
        let plain = try folder.write("plain.\(format)", format == "vtt" ? Self.plainVTT : Self.plainSRT)
        let odd = folder.path + "/" + name
        let bytes: [UInt8]
        switch name {
        case "regions.vtt": bytes = Array(Self.richVTT.utf8)
        case "numberless.srt": bytes = Array(Self.looseSRT.utf8)
        case "utf32-mark.srt": bytes = Self.wide(Self.plainSRT, utf32: true, mark: true)
        case "utf16-mark.srt": bytes = Self.wide(Self.plainSRT, utf32: false, mark: true)
        case "utf16.srt": bytes = Self.wide(Self.plainSRT, utf32: false, mark: false)
        default: bytes = Self.wide(Self.richVTT, utf32: true, mark: true)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: odd))
        let theirs = try await SubtitleFixtures.ffmpegCues(plain)
        #expect(theirs.count == 3)
        let ours = try SubtitleTests.ourCues(odd, subtitleFiles: [odd])
        #expect(SubtitleTests.sameCues(ours, theirs), "\(name): ours \(ours), ffmpeg's of the plain file \(theirs)")
        let track = try SubtitleStreams.file(odd, first: 1, language: nil)
        #expect(track.first?.track.file == name, "the track is called by the file's own name")
    }

    /// A file FFmpeg reads as it is is read as it is (no copy).
    @Test func aPlainFileIsReadInPlace() throws {
        let folder = try TemporaryDirectory()
        let plain = try folder.write("plain.srt", Self.plainSRT)
        #expect(SubtitleFileText.prepared(plain) == plain)
        let vtt = try folder.write("plain.vtt", Self.plainVTT)
        #expect(SubtitleFileText.prepared(vtt) == vtt)
    }

    /// What still cannot be read gives one line naming the file.
    @Test func aFileThatStillGivesNothingSaysSo() throws {
        let folder = try TemporaryDirectory()
        let styles = try folder.write("styles-only.vtt", "WEBVTT\n\nSTYLE\n::cue { color: red }\n")
        let sources = try SubtitleStreams.file(styles, first: 1, language: nil)
        let source = try #require(sources.first)
        #expect(throws: FFmpegError.self) { try SubtitleLoader.load(source, into: SubtitleTimeline()) }
        do {
            try SubtitleLoader.load(source, into: SubtitleTimeline())
        } catch {
            #expect(error.description.contains("styles-only.vtt") && error.description.contains("no cue"), "\(error)")
        }
        let garbage = try folder.write("notes.srt", "just some words\nno times at all\n")
        do {
            _ = try SubtitleStreams.file(garbage, first: 1, language: nil)
            Issue.record("a file with no subtitles is not a track")
        } catch {
            #expect(error.description.contains("notes.srt"), "\(error)")
        }
    }
}
