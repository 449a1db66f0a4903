import Foundation
import MediaEngine
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaState
import MediaSession
import SessionFakes
import Synchronization
import Testing
import TestKit

/// Closing a window stops its item; it does not end it: a video keeps its
/// resume position and reads stopped, and a picture reads idle (both used
/// to read "ended", and the video's position was deleted).
@Suite struct WindowCloseTests {
    /// Stands in for the window: keeps where its input goes (as the real
    /// window does, to the session), so the test can do what closing the
    /// window does, and shows nothing.
    final class Window: VideoSink, @unchecked Sendable {
        let controls = Mutex<(@Sendable (VideoWindowInput) -> Void)?>(nil)
        func present(_ frame: Frame, info: VideoFrameInfo) throws { held.withLock { shown = info.time; held.broadcast() } }
        func close() throws {}
        var dropsLateFrames: Bool { true }
        private let held = NSCondition()
        private var dismissed = false
        private var opened = false
        private var shown = -Double.infinity
        func holdUntilDismissed() { held.withLock { while !dismissed { held.wait() } } }
        func dismiss() { held.withLock { dismissed = true; held.broadcast() } }
        /// The player opened it, its input going to `input`.
        func open(_ input: @escaping @Sendable (VideoWindowInput) -> Void) {
            controls.withLock { $0 = input }
            held.withLock { opened = true; held.broadcast() }
        }
        /// Blocks until the player has opened it (run off the pool).
        func waitUntilOpen() { held.withLock { while !opened { held.wait() } } }
        /// Blocks until a picture at `seconds` or later is shown (off the pool).
        func waitUntilShown(past seconds: Double) { held.withLock { while shown < seconds { held.wait() } } }
        /// What the window's close button does.
        func closeByUser() { controls.withLock { $0 }?(.closed) }
    }

    /// The real engine, with the stand-in window.
    struct WindowEngine: PlayerFactory {
        let window: Window
        var clock: PlaybackClock { .realTime }
        func makePlayer(
            for item: FeedItem, input: MediaInput, start: Double, settings: AudioSettings, tracks: TrackSettings, subtitleFiles: [SidecarSubtitles.File],
            controls: @escaping @Sendable (VideoWindowInput) -> Void
        ) -> any PlayerHandle {
            var options = PlaybackOptions()
            options.start = start
            options.settings = settings
            let window = window
            return Player(input: input, audioSink: item.kind == .image ? nil : NullSink(), options: options) { _, _ in
                window.open(controls)
                return window
            }
        }
    }

    static func session(_ feed: Feed, positions: StateStore, window: Window) -> MediaSession {
        MediaSession(feed: feed, store: nil, positions: positions, engine: WindowEngine(window: window))
    }

    /// The item's status once it has left `state`: its state events,
    /// subscribed to before it is looked at (the test's time limit bounds it).
    static func waitUntil(_ session: MediaSession, _ item: FeedItem, isNot state: ItemState) async -> ItemStatus {
        let events = session.events()
        let now = session.status(of: item)
        guard now.state == state else { return now }
        for await event in events where event.status.id == item.key && event.status.state != state {
            return event.status
        }
        return session.status(of: item)
    }

    @Test(.timeLimit(.minutes(1)))
    func aClosedVideoKeepsItsPositionAndAClosedPictureIsIdle() async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let picture = try await Fixtures.make("picture.png", Fixtures.images[0].arguments)
        let folder = try TemporaryDirectory()
        let feed = Feed(title: "t", items: [
            FeedItem(position: 1, id: "clip", title: "Clip", kind: .video, source: .file(clip)),
            FeedItem(position: 2, id: "pic", title: "Pic", kind: .image, source: .file(picture)),
        ])
        let positions = try StateStore(path: folder.path + "/positions.sqlite")
        let window = Window()
        let session = Self.session(feed, positions: positions, window: window)

        _ = try await session.toggle(feed.items[0].key)
        // Played in real time until the picture of 0.6 s is shown.
        await offPool { window.waitUntilShown(past: 0.6) }
        window.closeByUser()
        let closed = await Self.waitUntil(session, feed.items[0], isNot: .playing)
        #expect(closed.state == .stopped, "a closed window is a stop: \(closed.state)")
        await session.shutdown()
        let saved = positions.position(for: clip)
        #expect((saved ?? 0) > 0.3, "the position is kept: \(saved ?? -1)")
        let again = try await session.toggle(feed.items[0].key)
        #expect(again.state == .playing && again.position > 0.3, "it resumes where the window was closed: \(again.position)")
        _ = await session.stop()

        let otherWindow = Window()
        let pictures = Self.session(feed, positions: positions, window: otherWindow)
        _ = try await pictures.toggle(feed.items[1].key)
        await offPool { otherWindow.waitUntilOpen() }
        otherWindow.closeByUser()
        let closedPicture = await Self.waitUntil(pictures, feed.items[1], isNot: .playing)
        #expect(closedPicture.state == .idle, "a closed picture is idle: \(closedPicture.state)")
        await session.shutdown()
        await pictures.shutdown()
    }
}
