import Synchronization
import Foundation
import MediaEngine
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaSession

/// The real engine: a `Player` per item, with the one factory that picks its
/// outputs (the audio device or a recording, a window or frame hashes, or
/// none). `play`, the background player, browse and `script` all make
/// their players here.
public struct MediaPlayerFactory: PlayerFactory {
    public enum Audio: Sendable {
        /// The audio device; none found means silent real-time playback.
        case device
        /// A sink of the caller's (a WAV recording).
        case sink(@Sendable () -> any AudioSink)
        /// The audio is not played at all.
        case off
    }

    public enum Video: Sendable {
        /// A window. Where there is no display, `fallback` (the item, its
        /// rotation) makes the output instead (pictures in the terminal);
        /// without one, a video plays its audio only.
        case window(fallback: (@Sendable (FeedItem, Int) -> any VideoSink)? = nil)
        /// A sink of the caller's (pictures in the terminal, frame hashes),
        /// made for the video's rotation.
        case sink(@Sendable (_ rotation: Int) -> any VideoSink)
        /// The video is not played at all.
        case off
    }

    /// An output that could not be had, said once by the front end.
    public enum Shortfall: Sendable, CustomStringConvertible {
        /// No audio device: playing silently in real time (why, for a log).
        case noAudioDevice(String)
        /// No window for `item`; `audioOnly` when its audio plays alone,
        /// false when there is nothing else to play.
        case noDisplay(FeedItem, String, audioOnly: Bool)

        public var description: String {
            switch self {
            case .noAudioDevice: return "no sound device: playing silently"
            case let .noDisplay(item, reason, audioOnly):
                return "item \(item.position): no window (\(reason))\(audioOnly ? "; playing the audio only" : "")"
            }
        }
    }

    public let clock: PlaybackClock
    let audio: Audio
    let video: Video
    let report: @Sendable (Shortfall) -> Void
    /// The device between two items, so autoplay is gapless.
    let handoff = AudioHandoff()
    /// The windows it opened that are still open (their titles carry `play`'s messages).
    private let windows = OpenWindows()
    /// Set once "no sound device" was said (shared by the factory's copies).
    private let saidNoAudioDevice = OnceFlag()

    /// ReplayGain's preamp, clipping prevention and the normalisation target.
    let loudness: LoudnessOptions
    /// The user's libavfilter chain (`--af`, `[playback] af`).
    let filters: String?
    /// An item's measured loudness, when it was measured (the cache index).
    let measured: @Sendable (FeedItem) -> Loudness?
    /// Subtitle files for every item (`--sub-file`), after those beside it.
    let subtitleFiles: [String]
    /// An adaptive stream's caps (`[playback] max-height`, `max-bitrate`).
    let variantLimits: VariantLimits

    public init(
        clock: PlaybackClock = .realTime, audio: Audio = .device, video: Video = .window(),
        loudness: LoudnessOptions = LoudnessOptions(), filters: String? = nil, measured: @escaping @Sendable (FeedItem) -> Loudness? = { _ in nil },
        subtitleFiles: [String] = [], variantLimits: VariantLimits = VariantLimits(), report: @escaping @Sendable (Shortfall) -> Void
    ) {
        self.subtitleFiles = subtitleFiles
        self.variantLimits = variantLimits
        self.clock = clock
        self.audio = audio
        self.video = video
        self.loudness = loudness
        self.filters = filters
        self.measured = measured
        self.report = report
    }

    public func makePlayer(
        for item: FeedItem, input: MediaInput, start: Double, settings: AudioSettings, tracks: TrackSettings,
        subtitleFiles linked: [SidecarSubtitles.File], controls: @escaping @Sendable (VideoWindowInput) -> Void
    ) -> any PlayerHandle {
        var options = PlaybackOptions()
        options.tracks = tracks
        // Beside the file, then the feed's, then the command line's.
        options.subtitleFiles = Self.subtitleFiles(for: item, input: input) + linked + subtitleFiles.map { SidecarSubtitles.File(path: $0, language: SidecarSubtitles.language(of: $0)) }
        options.clock = clock
        options.variantLimits = variantLimits
        options.settings = settings
        options.loudness = loudness
        options.filters = filters
        if item.kind != .image { options.measured = measured(item) }
        options.start = item.kind == .image ? 0 : start
        if case .off = audio { options.audio = false }
        if case .off = video { options.video = false }
        let audioSink = item.kind == .image ? nil : makeAudioSink(for: item, input: input)
        let (video, report, playsAudio, windows) = (video, report, options.audio, windows)
        return Player(input: input, audioSink: audioSink, options: options) { info, _ in
            switch video {
            case .off: return nil
            case let .sink(make): return make(info.rotation)
            case let .window(fallback):
                do {
                    let window = try SDLVideoSink(title: item.title, rotation: info.rotation)
                    window.onInput(controls)
                    windows.add(window)
                    return window
                } catch {
                    if let fallback { return fallback(item, info.rotation) }
                    report(.noDisplay(item, "\(error)", audioOnly: info.hasAudio && playsAudio))
                    return nil
                }
            }
        }
    }

    public func finish() { handoff.drain() }

    /// Shows `message` in the title of every window open (nil: the titles
    /// alone): `play`'s on-screen messages.
    public func showInWindowTitles(_ message: String?) {
        for window in windows.open { window.showInTitle(message) }
    }

    /// The titles of the windows open now.
    public var windowTitles: [String] { windows.open.map(\.currentTitle) }

    /// The subtitle files beside a local item (a feed's own file, a folder's,
    /// one played by path); a remote item's cached file has none beside it.
    static func subtitleFiles(for item: FeedItem, input: MediaInput) -> [SidecarSubtitles.File] {
        guard item.kind == .video, case let .file(path) = input, item.source?.isRemote == false else { return [] }
        return SidecarSubtitles.find(besides: path)
    }

    private func makeAudioSink(for item: FeedItem, input: MediaInput) -> (any AudioSink)? {
        switch audio {
        case .off: return nil
        case let .sink(make): return make()
        case .device:
            // Only media with sound probe the device (the probe makes ALSA
            // talk on stderr where there is none).
            let hasSound: Bool
            // A local file says itself (a silent video, or text named .mp3,
            // probes nothing).
            switch input {
            case let .file(path): hasSound = item.kind != .image && (try? Demuxer(path: path))?.audioStreamIndex != nil
            case .source, .stream, .separate: hasSound = item.kind != .image
            }
            do {
                return try SDLAudioSink(probe: hasSound, handoff: handoff)
            } catch {
                // Said once: every item after finds no device either.
                if saidNoAudioDevice.setFirst() { report(.noAudioDevice("\(error)")) }
                return NullSink()
            }
        }
    }
}

/// A flag set once, shared by the copies of whatever holds it.
final class OnceFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// True for the first caller only.
    func setFirst() -> Bool { !flag.exchange(true, ordering: .relaxed) }
}

/// The windows a factory opened, held weakly: a closed one's player let it go.
final class OpenWindows: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [Weak] = []

    private struct Weak {
        weak var window: SDLVideoSink?
    }

    func add(_ window: SDLVideoSink) {
        lock.withLock {
            held.removeAll { $0.window == nil }
            held.append(Weak(window: window))
        }
    }

    var open: [SDLVideoSink] { lock.withLock { held.compactMap(\.window) } }
}
