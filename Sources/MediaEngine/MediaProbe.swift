import CFFmpeg
import MediaFeed
import MediaInterfaces
import MediaModel

/// Reads a file's duration, tags and format with libavformat, without
/// decoding anything. Blocks on I/O: call it off Swift's cooperative pool.
public enum MediaProbe {
    public static func details(path: String) throws(FFmpegError) -> MediaDetails {
        try details(of: Demuxer(path: path))
    }

    /// The same for bytes from a source (`make fuzz` probes memory so).
    public static func details(source: any ByteSource) throws(FFmpegError) -> MediaDetails {
        try details(of: Demuxer(source: source))
    }

    private static func details(of demuxer: Demuxer) throws(FFmpegError) -> MediaDetails {
        let context = demuxer.context
        let audio = demuxer.audioStreamIndex.map(demuxer.stream)
        let video = demuxer.videoStreamIndex.map(demuxer.stream)
        /// A tag from the container, else from the audio stream (Ogg and
        /// FLAC keep their comments there).
        func tag(_ name: String) -> String? {
            for dictionary in [context.pointee.metadata, audio?.pointee.metadata] {
                guard let dictionary, let entry = av_dict_get(dictionary, name, nil, 0), let value = entry.pointee.value else { continue }
                let text = String(cString: value)
                if !text.isEmpty { return text }
            }
            return nil
        }
        var details = MediaDetails(duration: demuxer.duration, title: tag("title"), artist: tag("artist"), album: tag("album"))
        details.chapters = demuxer.chapters
        details.track = tag("track").flatMap(MediaDetails.tagNumber)
        details.disc = tag("disc").flatMap(MediaDetails.tagNumber)
        details.hasCover = (0..<context.pointee.nb_streams).contains { index in
            demuxer.stream(Int32(index)).pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        }
        if let main = video ?? audio {
            details.codec = String(cString: avcodec_get_name(main.pointee.codecpar.pointee.codec_id))
        }
        if let video {
            details.width = Int(video.pointee.codecpar.pointee.width)
            details.height = Int(video.pointee.codecpar.pointee.height)
        }
        if let audio { details.sampleRate = Int(audio.pointee.codecpar.pointee.sample_rate) }
        details.tracks = demuxer.audioStreams.enumerated().map { number, stream in
            MediaTrack(kind: .audio, number: number + 1, language: stream.language, title: stream.title, codec: stream.codec)
        } + SubtitleStreams.list(context, path: demuxer.path, offset: 0, first: 1, file: nil).map(\.track)
        return details
    }
}
