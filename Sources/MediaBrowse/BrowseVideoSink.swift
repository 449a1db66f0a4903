import Foundation
import MediaEngine
import MediaFeed
import MediaModel

/// A video browse plays where there is no window: each frame becomes the
/// item's picture (in its cell, and in the detail view) while it plays, and
/// the thumbnail comes back when it ends or stops. Frames go through a
/// `VideoRelay` to the view, which draws the newest at its next redraw (a
/// view that cannot keep up skips frames).
final class BrowseVideoSink: VideoSink, @unchecked Sendable {
    private let key: ItemKey
    private let rotation: Int
    private let relay: VideoRelay

    init(key: ItemKey, rotation: Int, relay: VideoRelay) {
        self.key = key
        self.rotation = rotation
        self.relay = relay
    }

    var dropsLateFrames: Bool { true }
    /// The subtitle goes with the picture as text, under it.
    var drawsSubtitleText: Bool { true }

    func present(_ frame: Frame, info: VideoFrameInfo) throws {
        let size = PictureStore.maximumSize
        relay.post(key, try PictureDecoder.picture(from: frame, maxWidth: size.width, maxHeight: size.height, rotation: rotation), subtitle: info.subtitle)
    }

    func close() throws {
        relay.post(key, nil, subtitle: nil)
    }
}

/// Where browse's in-terminal video frames go: the view, once it runs (the
/// engine is made before it).
public final class VideoRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (ItemKey, RGBAPicture?, String?) -> Void)?

    public init() {}

    /// The engine's video output for browse: a window where there is a
    /// display, else the item's cell and detail view.
    public var terminalSink: @Sendable (FeedItem, Int) -> any VideoSink {
        { [self] item, rotation in BrowseVideoSink(key: item.key, rotation: rotation, relay: self) }
    }

    func post(_ key: ItemKey, _ picture: RGBAPicture?, subtitle: String?) {
        lock.withLock { handler }?(key, picture, subtitle)
    }

    func connect(_ handler: @escaping @Sendable (ItemKey, RGBAPicture?, String?) -> Void) {
        lock.withLock { self.handler = handler }
    }
}
