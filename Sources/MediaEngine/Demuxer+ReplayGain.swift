import CFFmpeg
import MediaModel

extension Demuxer {
    /// The ReplayGain tags of the audio stream to play: by name from the
    /// stream's and the container's metadata (ID3 TXXX, Vorbis comments, APE,
    /// MP4 freeform tags, Opus's R128 gains), else the side data libavformat
    /// derives (an MP3's LAME header). Empty without audio.
    public var replayGainTags: ReplayGainTags {
        guard let index = audioStreamIndex else { return ReplayGainTags() }
        let audio = stream(index)
        let tags = ReplayGainTags.reading { name in
            for dictionary in [audio.pointee.metadata, context.pointee.metadata] {
                guard let dictionary, let entry = av_dict_get(dictionary, name, nil, 0), let value = entry.pointee.value else { continue }
                return String(cString: value)
            }
            return nil
        }
        guard tags.isEmpty else { return tags }
        var size: Int = 0
        guard let data = av_stream_get_side_data(audio, AV_PKT_DATA_REPLAYGAIN, &size), size >= MemoryLayout<AVReplayGain>.size else { return tags }
        let gain = UnsafeRawPointer(data).loadUnaligned(as: AVReplayGain.self)
        return ReplayGainTags(
            trackGain: gain.track_gain == Int32.min ? nil : gain.track_gain, trackPeak: gain.track_peak == 0 ? nil : gain.track_peak,
            albumGain: gain.album_gain == Int32.min ? nil : gain.album_gain, albumPeak: gain.album_peak == 0 ? nil : gain.album_peak
        )
    }
}
