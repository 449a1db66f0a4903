import Foundation
import MediaModel

extension Player {
    /// The gain every sample is multiplied by: the volume (0 muted) times
    /// the loudness gain.
    static func outputGain(_ settings: AudioSettings, _ loudness: AppliedGain?) -> Double {
        settings.muted ? 0 : Double(settings.volume) / 100 * (loudness?.factor ?? 1)
    }

    /// With `condition` held: the loudness gain for the settings in force,
    /// from the file's tags or its measured loudness. Only once the file is
    /// open (its tags read); a measurement that arrives later is used at
    /// the item's next start, never mid-item.
    func chooseLoudnessGainLocked() {
        guard info != nil else { return }
        loudnessGain = AppliedGain.choose(
            mode: audioSettings.loudness, replayGain: audioSettings.replayGain == .auto ? .track : audioSettings.replayGain,
            tags: replayGainTags, measured: options.measured, options: options.loudness
        )
    }

    /// With `condition` held: what the filter stage does to the next frame.
    /// A device applies the gain itself, as it plays.
    func audioStageLocked(sinkAppliesGain: Bool) -> AudioStage {
        AudioStage(filters: options.filters, gain: sinkAppliesGain ? 1 : Self.outputGain(audioSettings, loudnessGain), speed: serialSpeed)
    }
}
