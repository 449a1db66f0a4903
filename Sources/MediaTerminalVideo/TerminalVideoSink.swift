import CFFmpeg
import Foundation
import MediaEngine
import MediaTerminal
import Synchronization

/// Video in the terminal (`play --vo terminal`, and `auto` where there is no
/// window): each frame scaled by libswscale straight to the pixels the
/// terminal shows, drawn by libchafa (kitty, sixel or colour blocks) and
/// written as one buffer that starts at the top left, never a clear. The
/// last row is the status line's, the last column stays empty, so the
/// terminal never scrolls. `present` hands the newest frame over and
/// returns: a terminal that cannot keep up skips frames instead of holding
/// the clock back, as the window does.
public final class TerminalVideoSink: VideoSink, @unchecked Sendable {
    private let screen: TerminalScreen
    private let rotation: Int
    /// `--video-out` with `--vo terminal`: the scaled RGBA frames are hashed
    /// here instead of drawn, every one (see `TerminalScreen.fixedSize`).
    private let record: (any VideoSink)?
    private let scaler = TerminalScaler()
    private let lock = NSCondition()
    private var dismissed = false

    public init(screen: TerminalScreen, rotation: Int = 0, record: (any VideoSink)? = nil) {
        self.screen = screen
        self.rotation = rotation
        self.record = record
    }

    public var dropsLateFrames: Bool { record == nil }
    /// Subtitles are terminal text under the picture, not drawn into it.
    public var drawsSubtitleText: Bool { true }

    public func present(_ frame: Frame, info: VideoFrameInfo) throws {
        if let record {
            let area = screen.pictureArea()
            guard let scaled = try scaler.scale(frame, into: area, rotation: rotation) else { return }
            try record.present(scaled.frame, info: VideoFrameInfo(time: info.time, width: scaled.width, height: scaled.height))
            return
        }
        screen.show(frame, rotation: rotation, scaler: scaler, subtitle: info.subtitle)
    }

    /// A still picture stays on screen until dismissed (q, a stop).
    public func holdUntilDismissed() {
        guard record == nil else { return }
        lock.withLock { while !dismissed { lock.wait() } }
    }

    public func dismiss() {
        lock.withLock {
            dismissed = true
            lock.broadcast()
        }
    }

    public func close() throws {
        try record?.close()
    }
}
