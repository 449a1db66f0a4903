import Foundation
import MediaModel

/// What the opened file holds, as published once playback starts.
public struct MediaInfo: Sendable, Equatable {
    public var hasAudio: Bool
    public var hasVideo: Bool
    /// A single picture (PNG, JPEG, WebP, a GIF's first frame), not a video.
    public var isImage: Bool
    /// Degrees clockwise that turn the picture upright (0, 90, 180, 270).
    public var rotation: Int
    /// Seconds, when the container says.
    public var duration: Double?
    /// The container's chapters, in order.
    public var chapters: [Chapter]

    public init(hasAudio: Bool, hasVideo: Bool, isImage: Bool, rotation: Int, duration: Double?, chapters: [Chapter] = []) {
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.isImage = isImage
        self.rotation = rotation
        self.duration = duration
        self.chapters = chapters
    }
}
