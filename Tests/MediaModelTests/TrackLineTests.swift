import MediaModel
import Testing

/// The tracks' line of `status` and `play`: it says only what the item has.
@Suite struct TrackLineTests {
    /// An audio-only item has no subtitles to move: no `sub delay` (it
    /// showed `sub delay −1.2 s`, carried on from a film before it).
    @Test func aSubtitleDelayIsSaidOnlyWhereThereAreSubtitles() {
        let audio = MediaTrack(kind: .audio, number: 1, codec: "aac")
        #expect(TrackStatus(audio: [audio], audioTrack: 1, subtitleDelay: -1.2).line == "")
        let subtitle = MediaTrack(kind: .subtitle, number: 1, language: "en", codec: "subrip")
        #expect(TrackStatus(audio: [audio], subtitles: [subtitle], audioTrack: 1, subtitleTrack: 1, subtitleDelay: -1.2).line.hasSuffix("sub delay −1.2 s"))
    }
}
