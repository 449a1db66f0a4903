import Foundation
import MediaModel
import Testing

/// ReplayGain tags read as libavformat reads them, and the gain chosen from
/// tags or a measurement.
@Suite struct LoudnessGainTests {
    @Test func tagValuesReadAsLibavformatReadsThem() {
        #expect(ReplayGainTags.microbels("-6.50 dB") == -650_000)
        #expect(ReplayGainTags.microbels("  +2.123456 dB") == 212_345)
        #expect(ReplayGainTags.microbels("-0.5") == -50_000)
        #expect(ReplayGainTags.microbels("3") == 300_000)
        #expect(ReplayGainTags.microbels("loud") == nil)
        #expect(ReplayGainTags.microbels("-99999999999 dB") == nil)
        #expect(ReplayGainTags.peak("0.988553") == 98855)
        #expect(ReplayGainTags.peak("-1") == nil)
        #expect(ReplayGainTags.peak("0") == nil)
        // R128: Q7.8 dB relative to -23 LUFS, +5 dB to ReplayGain's -18.
        #expect(ReplayGainTags.r128Microbels("-1280") == 0)
        #expect(ReplayGainTags.r128Microbels("256") == 600_000)
        #expect(ReplayGainTags.r128Microbels("40000") == nil)
    }

    /// Names as the lookup gives them; an R128 gain only where no ReplayGain one is.
    @Test func tagsAreReadByNameAndR128FillsWhatIsMissing() {
        let values = ["replaygain_track_gain": "-3 dB", "R128_ALBUM_GAIN": "0"]
        let tags = ReplayGainTags.reading { name in values.first { $0.key.uppercased() == name }?.value }
        #expect(tags.trackGain == -300_000)
        #expect(tags.albumGain == 500_000, "an R128 album gain where no ReplayGain one is")
    }

    static let tags = ReplayGainTags(trackGain: -650_000, trackPeak: 40_000, albumGain: 600_000, albumPeak: 80_000)

    @Test func tagsGiveTheChosenGainCappedByThePeak() throws {
        let track = try #require(AppliedGain.choose(mode: .on, replayGain: .track, tags: Self.tags, measured: nil, options: LoudnessOptions()))
        #expect(track.source == .track)
        #expect(abs(track.decibels - -6.5) < 1e-6)
        // +6 dB asked, the album's peak 0.8 allows 1/0.8.
        let album = try #require(AppliedGain.choose(mode: .tags, replayGain: .album, tags: Self.tags, measured: nil, options: LoudnessOptions()))
        #expect(album.source == .album && abs(album.factor - 1.25) < 1e-6)
        var free = LoudnessOptions()
        free.preventClipping = false
        free.preamp = 2
        let unclipped = try #require(AppliedGain.choose(mode: .on, replayGain: .album, tags: Self.tags, measured: nil, options: free))
        #expect(abs(unclipped.decibels - 8) < 1e-6, "preamp added, no cap")
        // The track's gain missing: the album's, and the other way round.
        let albumOnly = ReplayGainTags(albumGain: -100_000)
        #expect(AppliedGain.choose(mode: .on, replayGain: .track, tags: albumOnly, measured: nil, options: LoudnessOptions())?.source == .album)
        #expect(AppliedGain.choose(mode: .on, replayGain: .off, tags: Self.tags, measured: nil, options: LoudnessOptions()) == nil)
        #expect(AppliedGain.choose(mode: .measured, replayGain: .track, tags: Self.tags, measured: nil, options: LoudnessOptions()) == nil)
        #expect(AppliedGain.choose(mode: .off, replayGain: .track, tags: Self.tags, measured: nil, options: LoudnessOptions()) == nil)
    }

    @Test func aMeasuredFileComesToTheTargetBelowTheCeiling() throws {
        let quiet = Loudness(integrated: -30, range: 5, truePeak: -20)
        let gain = try #require(AppliedGain.choose(mode: .on, replayGain: .track, tags: ReplayGainTags(), measured: quiet, options: LoudnessOptions()))
        #expect(gain.source == .measured && abs(gain.decibels - 12) < 1e-9)
        // +12 wanted, but the true peak (-5 dBTP) may rise only to -1: +4.
        let peaky = Loudness(integrated: -30, range: 5, truePeak: -5)
        #expect(abs((AppliedGain.choose(mode: .measured, replayGain: .track, tags: ReplayGainTags(), measured: peaky, options: LoudnessOptions())?.decibels ?? 0) - 4) < 1e-9)
        // Tags win where there are some; `measured` uses only the measurement.
        #expect(AppliedGain.choose(mode: .on, replayGain: .track, tags: Self.tags, measured: quiet, options: LoudnessOptions())?.source == .track)
        #expect(AppliedGain.choose(mode: .measured, replayGain: .track, tags: Self.tags, measured: quiet, options: LoudnessOptions())?.source == .measured)
        // Silence (ebur128's floor) is left alone.
        #expect(AppliedGain.choose(mode: .on, replayGain: .track, tags: ReplayGainTags(), measured: Loudness(integrated: -70, range: 0, truePeak: -144), options: LoudnessOptions()) == nil)
    }

    @Test func statusText() {
        #expect(AppliedGain(factor: pow(10, -9.3 / 20), source: .measured).text == "gain −9.3 dB (measured)")
        #expect(AppliedGain(factor: pow(10, 2.14 / 20), source: .album).text == "gain +2.1 dB (album)")
    }

    @Test func autoIsTheAlbumInOrderTheTrackAlone() {
        let settings = AudioSettings(replayGain: .auto)
        #expect(settings.forPlayback(inAlbumOrder: true).replayGain == .album)
        #expect(settings.forPlayback(inAlbumOrder: false).replayGain == .track)
        #expect(AudioSettings(replayGain: .track).forPlayback(inAlbumOrder: true).replayGain == .track)
    }

    @Test func keptSettingsWithoutLoudnessReadAsOn() throws {
        let old = try JSONDecoder().decode(AudioSettings.self, from: Data(#"{"volume": 80, "muted": false, "speed": 1}"#.utf8))
        #expect(old.loudness == .on && old.replayGain == .auto)
        #expect(AudioSettings(volume: 80).applying(.loudness(nil))?.loudness == .tags)
        #expect(AudioSettings(volume: 80, loudness: .off).applying(.volume(.to(50)))?.loudness == .off, "a volume change keeps the mode")
    }
}
