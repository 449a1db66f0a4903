import CSDBus
import Foundation
import Glibc
import MediaFeed
import MediaModel
import MediaTerminal
import MediaSession
import Synchronization

/// The background player on the session bus as an MPRIS 2 media player
/// (`org.mpris.MediaPlayer2.mediaplay` at `/org/mpris/MediaPlayer2`), so media
/// keys, desktop widgets and `playerctl` control it. Every call goes through
/// the session (the command layer); the properties are read from it.
public final class MPRISService: @unchecked Sendable {
    static let path = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    private let bus: SessionBus
    private let session: MediaSession
    private let artwork: @Sendable (FeedItem) -> String?
    private let details: @Sendable (FeedItem) -> MediaDetails?
    private let quit: @Sendable () -> Void
    private let followFeed: @Sendable () -> Void
    private let handlers: UnsafeMutablePointer<mp_mpris_handlers>
    private var slots: (root: OpaquePointer?, player: OpaquePointer?) = (nil, nil)
    /// The bus name it took.
    public let name: String
    /// What was last announced, per signalled property (bus thread only).
    private var announced: [String: PropertySnapshot] = [:]
    private var watcher: Task<Void, Never>?
    private var settingsWatcher: Task<Void, Never>?
    /// How long a method waits for its command, and how far playback moves
    /// between two positions (a seek or not).
    private let clock: any MediaClock

    /// Connects and publishes; throws the reason when there is no session
    /// bus (the caller logs it once and goes on without).
    /// - artwork: the file URL of an item's picture, when it is at hand.
    /// - details: an item's probed tags.
    /// - followFeed: takes the feed file's changes in before a command, as
    ///   the socket's requests do.
    /// - lost: told once why the bus connection ended (MPRIS is off then).
    public init(
        session: MediaSession, artwork: @escaping @Sendable (FeedItem) -> String?,
        details: @escaping @Sendable (FeedItem) -> MediaDetails?, followFeed: @escaping @Sendable () -> Void,
        quit: @escaping @Sendable () -> Void, lost: @escaping @Sendable (String) -> Void, clock: any MediaClock = SystemClock.shared
    ) throws {
        bus = try SessionBus(onLost: lost)
        self.clock = clock
        self.session = session
        self.artwork = artwork
        self.details = details
        self.quit = quit
        self.followFeed = followFeed
        // The well-known name, or one per instance when another player has it.
        let base = "org.mpris.MediaPlayer2.mediaplay"
        var taken = base
        var result = bus.requestName(base)
        if result == -EEXIST {
            taken = "\(base).instance\(getpid())"
            result = bus.requestName(taken)
        }
        guard result >= 0 else { throw SessionBusError(code: result, doing: "own the name \(taken)") }
        name = taken
        handlers = .allocate(capacity: 1)
        handlers.initialize(to: mp_mpris_handlers(context: nil, get: mprisGet, set: mprisSet, call: mprisCall))
        handlers.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        var root: OpaquePointer?
        var player: OpaquePointer?
        let added = mp_mpris_add(bus.bus, Self.path, handlers, &root, &player)
        guard added >= 0 else { throw SessionBusError(code: added, doing: "publish the MPRIS objects") }
        slots = (root, player)
        let reading = Reading(session)
        for property in Self.signalled { announced[property] = snapshot(property, reading) }
        bus.start()
        // Settings changed by any front end: MPRIS listens like any other.
        let settings = session.settingsEvents()
        settingsWatcher = Task { [weak self] in
            for await _ in settings {
                guard let self else { return }
                self.refresh()
            }
        }
        let events = session.events()
        watcher = Task { [weak self, clock] in
            var seeks = SeekDetector(clock: clock)
            for await event in events {
                guard let self else { return }
                switch event.event {
                case .state:
                    // A pause, a resume or a new item: playback's own
                    // progress is measured from here.
                    seeks.rebase(event.status)
                    self.refresh()
                case .position:
                    guard event.status.id == self.session.currentStatus()?.id,
                          seeks.isJump(event.status, speed: self.session.audioSettings.speed) else { break }
                    let microseconds = CheckedNumber.microseconds(event.status.position)
                    self.bus.perform { bus in _ = mp_emit_seeked(bus.bus, Self.path, microseconds) }
                case .metadata: self.refresh()
                case .progress, .subtitle: break
                }
            }
        }
    }

    deinit {
        handlers.deallocate()
    }

    /// Leaves the bus (the daemon quits).
    /// Waits for the bus thread to end: nothing calls back into this after.
    public func stop() {
        watcher?.cancel()
        settingsWatcher?.cancel()
        bus.stop { [self] _ in
            sd_bus_slot_unref(slots.root)
            sd_bus_slot_unref(slots.player)
            slots = (nil, nil)
        }
    }

    /// Something may have changed (a state, the volume, a mode): signal the
    /// properties whose values did.
    public func refresh() {
        bus.perform { [self] bus in
            var changed: [String] = []
            let reading = Reading(session)
            for property in Self.signalled {
                let now = snapshot(property, reading)
                if announced[property] != now {
                    announced[property] = now
                    changed.append(property)
                }
            }
            guard !changed.isEmpty else { return }
            var names = changed.map { strdup($0) } + [nil]
            defer { for name in names { free(name) } }
            sd_bus_emit_properties_changed_strv(bus.bus, Self.path, Self.playerInterface, &names)
        }
    }

    /// The Player properties that signal their changes.
    static let signalled = ["PlaybackStatus", "LoopStatus", "Rate", "Shuffle", "Metadata", "Volume", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek"]

    // MARK: - Reading the session

    /// The session as one refresh or one property read sees it: each part
    /// read once, and only if a property needs it (`canStep` walks the
    /// playlist's order; the tags come from the cache's index).
    final class Reading {
        private let session: MediaSession
        init(_ session: MediaSession) { self.session = session }

        lazy var current: (item: FeedItem, status: ItemStatus)? = {
            guard let status = session.currentStatus(), let item = session.item(for: status.id) else { return nil }
            return (item, status)
        }()
        lazy var canStep = session.canStep
        lazy var settings = session.audioSettings
        lazy var playlist = session.playlistMode

        var playbackStatus: String {
            switch current?.status.state {
            case .playing?, .buffering?, .downloading?: return "Playing"
            case .paused?: return "Paused"
            default: return "Stopped"
            }
        }

        var volume: Double { settings.muted ? 0 : Double(settings.volume) / 100 }

        var loopStatus: String {
            switch playlist.repeat {
            case .off: return "None"
            case .one: return "Track"
            case .all: return "Playlist"
            }
        }

        var canSeek: Bool {
            guard let (item, status) = current else { return false }
            return item.kind != .image && status.duration != nil
        }
    }

    /// An object path for the item: its id, with every byte that a path
    /// element cannot hold written as _XX.
    static func trackID(_ key: ItemKey) -> String {
        var element = ""
        for byte in key.rawValue.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) {
                element.append(Character(Unicode.Scalar(byte)))
            } else {
                element += String(format: "_%02X", byte)
            }
        }
        return "/org/mediaplay/Item/" + (element.isEmpty ? "_" : element)
    }

    func metadata(_ reading: Reading) -> [(String, MPRISValue)] {
        guard let (item, status) = reading.current else { return [("mpris:trackid", .objectPath(Self.noTrack))] }
        // Tags and titles come from files and feeds: no escape sequence or
        // direction mark reaches a status bar that shows them.
        // A live stream's now-playing line is the title; the station, the album.
        // A chapter playing follows the title ("Episode 12 — Part Two"),
        // and is also the custom key mediaplay:chapter (docs/PROTOCOL.md).
        let chapter = status.chapter.map { " — \($0.title)" } ?? ""
        let title = status.streamTitle.flatMap { $0.isEmpty ? nil : $0 } ?? item.title + chapter
        var entries: [(String, MPRISValue)] = [("mpris:trackid", .objectPath(Self.trackID(item.key))), ("xesam:title", .string(DisplayWidth.plainText(title).redactingUserinfo))]
        if status.streamTitle != nil { entries.append(("xesam:album", .string(DisplayWidth.plainText(item.title)))) }
        if let chapter = status.chapter { entries.append(("mediaplay:chapter", .string(DisplayWidth.plainText(chapter.line)))) }
        if let duration = status.duration { entries.append(("mpris:length", .int64(CheckedNumber.microseconds(duration)))) }
        if let url = item.source?.description {
            entries.append(("xesam:url", .string(url.hasPrefix("/") ? URL(fileURLWithPath: url).absoluteString : url.redactingUserinfo)))
        }
        if let art = artwork(item) { entries.append(("mpris:artUrl", .string(art))) }
        if let tags = details(item) {
            if let artist = tags.artist.map(DisplayWidth.plainText), !artist.isEmpty { entries.append(("xesam:artist", .strings([artist]))) }
            if let album = tags.album.map(DisplayWidth.plainText), !album.isEmpty { entries.append(("xesam:album", .string(album))) }
        }
        return entries
    }

    /// A property's value, compared to know whether to signal it.
    enum PropertySnapshot: Equatable {
        case string(String)
        case bool(Bool)
        case double(Double)
        case metadata([String])
    }

    private func snapshot(_ property: String, _ reading: Reading) -> PropertySnapshot {
        switch property {
        case "PlaybackStatus": return .string(reading.playbackStatus)
        case "LoopStatus": return .string(reading.loopStatus)
        case "Rate": return .double(reading.settings.speed)
        case "Shuffle": return .bool(reading.playlist.shuffle)
        case "Metadata": return .metadata(metadata(reading).map { "\($0.0)=\($0.1)" })
        case "Volume": return .double(reading.volume)
        case "CanGoNext": return .bool(reading.canStep.next)
        case "CanGoPrevious": return .bool(reading.canStep.previous)
        case "CanPlay": return .bool(reading.current != nil || reading.canStep.next)
        case "CanPause": return .bool(reading.current?.item.kind.map { $0 != .image } ?? false)
        case "CanSeek": return .bool(reading.canSeek)
        default: return .bool(false)
        }
    }

    // MARK: - Serving the bus (bus thread)

    fileprivate func get(_ interface: String, _ property: String, into writer: MessageWriter) -> Int32 {
        let reading = Reading(session)
        switch property {
        case "CanQuit", "CanControl": writer.bool(true)
        case "CanRaise", "HasTrackList": writer.bool(false)
        case "Identity": writer.string("mediaplay")
        case "DesktopEntry": writer.string("mediaplay")
        case "SupportedUriSchemes": writer.strings(["file", "http", "https"])
        case "SupportedMimeTypes":
            writer.strings(["audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/opus", "audio/flac", "audio/wav", "video/mp4", "video/webm", "video/x-matroska", "image/jpeg", "image/png"])
        case "PlaybackStatus", "LoopStatus":
            writer.string(property == "PlaybackStatus" ? reading.playbackStatus : reading.loopStatus)
        case "Rate": writer.double(reading.settings.speed)
        case "MinimumRate": writer.double(AudioSettings.speeds.lowerBound)
        case "MaximumRate": writer.double(AudioSettings.speeds.upperBound)
        case "Shuffle": writer.bool(reading.playlist.shuffle)
        case "Metadata": writer.dictionary(metadata(reading))
        case "Volume": writer.double(reading.volume)
        case "Position": writer.int64(CheckedNumber.microseconds(reading.current?.status.position ?? 0))
        default:
            guard case let .bool(value) = snapshot(property, reading) else { return -ENOENT }
            writer.bool(value)
        }
        return 0
    }

    fileprivate func set(_ property: String, from reader: MessageReader) -> Int32 {
        followFeed()
        switch property {
        case "Volume":
            guard let value = reader.double(), value.isFinite else { return -EINVAL }
            // Volume 1.0 is 100 %; a level above 0 unmutes.
            let level = CheckedNumber.clamped(value * 100, to: 0...150)
            run(.volume(.to(level)))
            if level > 0 && session.audioSettings.muted { run(.mute(false)) }
        case "Rate":
            guard let value = reader.double(), value.isFinite else { return -EINVAL }
            // The specification: a rate of 0 acts as Pause.
            run(value <= 0 ? .pause : .speed(.to(value)))
        case "Shuffle":
            guard let value = reader.bool() else { return -EINVAL }
            run(.shuffle(value))
        case "LoopStatus":
            switch reader.string() {
            case "None"?: run(.setRepeat(.off))
            case "Track"?: run(.setRepeat(.one))
            case "Playlist"?: run(.setRepeat(.all))
            default: return -EINVAL
            }
        default:
            return -EPERM
        }
        refresh()
        return 0
    }

    fileprivate func call(_ member: String, _ message: OpaquePointer) -> Int32 {
        followFeed()
        let reader = MessageReader(message: message)
        let session = self.session
        let reading = Reading(session)
        let current = reading.current
        switch member {
        case "Raise": break
        case "Quit": quit()
        case "PlayPause":
            if let status = current?.status, status.state.isActive { run(.toggle(.id(status.id.rawValue))) } else { play(current?.item) }
        case "Play":
            if let status = current?.status, status.state == .paused { run(.play(.id(status.id.rawValue))) } else if current?.status.state.isActive != true { play(current?.item) }
        case "Pause":
            run(.pause)
        case "Stop":
            run(.stop(nil))
        case "Next", "Previous":
            run(member == "Next" ? .next : .previous)
        case "Seek":
            guard let offset = reader.int64() else { return -EINVAL }
            if let status = current?.status, reading.canSeek {
                let target = status.position + Double(offset) / 1e6
                // Past the end is the next item, as the specification says.
                if let duration = status.duration, target >= duration {
                    run(.next)
                } else {
                    run(.seek(.to(max(target, 0)), .id(status.id.rawValue)))
                }
            }
        case "SetPosition":
            guard let track = reader.string("o"), let position = reader.int64() else { return -EINVAL }
            // A stale track id (another item now) is ignored, as specified.
            if let status = current?.status, track == Self.trackID(status.id), position >= 0, reading.canSeek,
               status.duration.map({ Double(position) / 1e6 <= $0 }) ?? true {
                run(.seek(.to(Double(position) / 1e6), .id(status.id.rawValue)))
            }
        case "OpenUri":
            guard let uri = reader.string() else { return -EINVAL }
            let path = URL(string: uri).flatMap { $0.isFileURL ? $0.path : nil }
            guard let item = session.feed.items.first(where: { $0.source?.description == uri || $0.source?.description == path }) else {
                return -ENOENT
            }
            run(.play(.id(item.id)))
        default:
            return -ENOENT
        }
        return mp_reply_empty(message)
    }

    /// Plays `item`, or else the first item of the playlist.
    private func play(_ item: FeedItem?) {
        run(item.map { .toggle(.id($0.id)) } ?? .next)
    }

    /// A method or property as the one vocabulary's command, through the
    /// session's one entry point: at once when it waits for nothing, else
    /// waited for briefly (see `waitBriefly`).
    private func run(_ command: PlayerCommand) {
        let session = session
        do {
            if try session.performAtOnce(command) != nil { return }
        } catch {
            return  // refused (nothing to seek in): once, not twice
        }
        waitBriefly { _ = try? await session.performWaiting(command) }
    }

    /// Runs a command of the session and waits for it, up to two seconds
    /// (a download may take longer: the reply does not wait for it), so a
    /// client that reads the state right after its call sees the result.
    /// Blocks the bus thread, never the cooperative pool.
    private func waitBriefly(_ body: @escaping @Sendable () async -> Void) {
        let finished = FinishedFlag()
        Task {
            await body()
            finished.set()
        }
        let deadline = clock.now + 2
        finished.condition.lock()
        defer { finished.condition.unlock() }
        while !finished.isSet, clock.wait(on: finished.condition, until: deadline) {}
    }
}

/// Set once, from any thread; read under its condition.
private final class FinishedFlag: @unchecked Sendable {
    let condition = NSCondition()
    // Guarded by `condition`.
    private(set) var isSet = false

    func set() {
        condition.withLock {
            isSet = true
            condition.signal()
        }
    }
}

/// Tells a seek from playback moving on: a position more than a second
/// away from where the last one and the time since would put it is a jump.
struct SeekDetector {
    private let clock: any MediaClock
    private var last: (key: ItemKey, position: Double, time: Double)?

    init(clock: any MediaClock) {
        self.clock = clock
    }

    /// A change of state: where the item stands now is the new baseline.
    mutating func rebase(_ status: ItemStatus) {
        last = (status.id, status.position, clock.now)
    }

    mutating func isJump(_ status: ItemStatus, speed: Double) -> Bool {
        let now = clock.now
        defer { last = (status.id, status.position, now) }
        guard let last, last.key == status.id else { return false }
        let expected = last.position + (status.state == .playing ? (now - last.time) * speed : 0)
        return abs(status.position - expected) > 1
    }
}

// The handlers sd-bus calls (through the C shim), on the bus thread.

private func service(_ context: UnsafeMutableRawPointer?) -> MPRISService {
    Unmanaged<MPRISService>.fromOpaque(context!).takeUnretainedValue()
}

private func mprisGet(_ context: UnsafeMutableRawPointer?, _ interface: UnsafePointer<CChar>?, _ property: UnsafePointer<CChar>?, _ reply: OpaquePointer?) -> Int32 {
    guard let interface, let property, let reply else { return -EINVAL }
    return service(context).get(String(cString: interface), String(cString: property), into: MessageWriter(message: reply))
}

private func mprisSet(_ context: UnsafeMutableRawPointer?, _ interface: UnsafePointer<CChar>?, _ property: UnsafePointer<CChar>?, _ value: OpaquePointer?) -> Int32 {
    guard let property, let value else { return -EINVAL }
    return service(context).set(String(cString: property), from: MessageReader(message: value))
}

private func mprisCall(_ context: UnsafeMutableRawPointer?, _ interface: UnsafePointer<CChar>?, _ member: UnsafePointer<CChar>?, _ message: OpaquePointer?) -> Int32 {
    guard let member, let message else { return -EINVAL }
    return service(context).call(String(cString: member), message)
}
