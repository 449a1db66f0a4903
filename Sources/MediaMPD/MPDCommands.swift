import Foundation
import MediaFeed
import MediaModel
import MediaSession

/// MPD's commands over the session: the queue is the feed (with the items
/// added by themselves after it), a control is a `PlayerCommand` carried
/// out by the session like any other front end's, and the library is the
/// feed's items by their tags (docs/PROTOCOL.md, "MPD").
final class MPDCommands: @unchecked Sendable {
    let session: MediaSession
    private let clock: any MediaClock
    private let details: @Sendable ([FeedItem]) -> [MediaDetails?]
    private let cover: @Sendable (FeedItem) -> String?
    private let followFeed: @Sendable () -> Void
    /// Told what changed by a command (set once, before `start`).
    var changed: @Sendable (MPDSubsystems) -> Void = { _ in }
    private let started: Double
    private let startedWall: Date

    private let lock = NSLock()
    /// Each item's `Id`, given the first time it is seen, kept while the daemon runs.
    private var ids: [ItemKey: Int] = [:]
    private var nextID = 1
    /// The queue as last seen (its keys) and its version (`playlist:`).
    private var seen: [ItemKey] = []
    private var version = 1
    /// The item that played last: MPD's current song stays after a stop.
    private var lastCurrent: ItemKey?

    /// An item became active (any front end started it).
    func noteCurrent(_ key: ItemKey) {
        lock.withLock { lastCurrent = key }
    }

    /// The current song: what is active, else what was last.
    private func currentKey() -> ItemKey? {
        if let key = session.currentStatus()?.id {
            noteCurrent(key)
            return key
        }
        return lock.withLock { lastCurrent }
    }

    /// Commands that work before the password.
    static let withoutPassword: Set<String> = ["ping", "password", "close", "commands", "notcommands"]

    /// The same, to look a name up.
    static let known = Set(names)

    /// Every command answered (`commands`), sorted as MPD lists them.
    static let names: [String] = [
        "add", "addid", "albumart", "binarylimit", "clear", "close", "commands", "consume", "count", "crossfade", "currentsong", "decoders",
        "delete", "deleteid", "find", "getvol", "idle", "list", "listall", "listallinfo", "lsinfo", "move", "moveid", "next", "noidle", "notcommands",
        "outputs", "password", "pause", "ping", "play", "playid", "playlist", "playlistid", "playlistinfo", "plchanges", "plchangesposid", "previous",
        "random", "readpicture", "repeat", "replay_gain_status", "search", "seek", "seekcur", "seekid", "setvol", "single", "stats", "status", "stop",
        "tagtypes", "urlhandlers", "volume",
    ].sorted()

    /// Whether `add` takes local paths: only behind a password (MPD takes
    /// them only from its local socket), else any user of this machine
    /// could add the owner's files and read them back through `albumart`.
    let localFiles: Bool

    init(
        session: MediaSession, clock: any MediaClock, details: @escaping @Sendable ([FeedItem]) -> [MediaDetails?],
        cover: @escaping @Sendable (FeedItem) -> String?, followFeed: @escaping @Sendable () -> Void, localFiles: Bool = false
    ) {
        self.localFiles = localFiles
        self.session = session
        self.clock = clock
        self.details = details
        self.cover = cover
        self.followFeed = followFeed
        started = clock.now
        startedWall = clock.wallTime
        _ = queueChanged()
    }

    // MARK: - The queue

    /// The queue now; a change since it was last seen raises its version
    /// and is returned as `.playlist`.
    @discardableResult
    func queueChanged(_ given: [FeedItem]? = nil) -> MPDSubsystems {
        let items = given ?? session.feed.items
        return lock.withLock {
            // Compared in place: a status asks this every time.
            if items.count == seen.count, zip(items, seen).allSatisfy({ $0.key == $1 }) { return [] }
            let keys = items.map(\.key)
            for key in keys where ids[key] == nil {
                ids[key] = nextID
                nextID += 1
            }
            seen = keys
            version += 1
            return .playlist
        }
    }

    /// When the feed file was last checked by a reading command.
    private var lastFollowed = -Double.infinity

    /// What only reads (status, the queue's lists) checks the feed file at
    /// most every tenth of a second: clients poll `status` several times a
    /// second, and the check (a stat and a path resolved) was most of a
    /// round trip's own work. Controls always check it first.
    private func followFeedWhenDue() {
        let now = clock.now
        let due = lock.withLock {
            guard now - lastFollowed >= 0.1 else { return false }
            lastFollowed = now
            return true
        }
        if due { followFeed() }
    }

    private func queue() -> (items: [FeedItem], version: Int) {
        followFeedWhenDue()
        let items = session.feed.items
        let change = queueChanged(items)
        if !change.isEmpty { changed(change) }
        return (items, lock.withLock { version })
    }

    private func id(of key: ItemKey) -> Int {
        lock.withLock {
            if let id = ids[key] { return id }
            ids[key] = nextID
            nextID += 1
            return nextID - 1
        }
    }

    private func item(withID text: String, in items: [FeedItem], command: String) throws(MPDError) -> FeedItem {
        guard let number = Self.integer(text) else { throw MPDError(.argument, "Integer expected: \(text)") }
        let key: ItemKey? = lock.withLock { ids.first { $0.value == number }?.key }
        guard let key, let item = items.first(where: { $0.key == key }) else { throw MPDError(.noExist, "No such song") }
        return item
    }

    private func item(atPosition text: String, in items: [FeedItem]) throws(MPDError) -> FeedItem {
        guard let number = Self.integer(text) else { throw MPDError(.argument, "Integer expected: \(text)") }
        guard number >= 0 && number < items.count else { throw MPDError(.argument, "Bad song index") }
        return items[number]
    }

    static func integer(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 10 else { return nil }
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func seconds(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, abs(value) <= 7 * 24 * 3600 else { return nil }
        return value
    }

    private static func flag(_ words: [String]) throws(MPDError) -> Bool {
        guard words.count == 2, words[1] == "0" || words[1] == "1" else {
            throw MPDError(.argument, words.count == 2 ? "Boolean (0/1) expected: \(words[1])" : "wrong number of arguments for \"\(words[0])\"")
        }
        return words[1] == "1"
    }

    // MARK: - Running a command through the session

    /// A control as the one vocabulary's command: at once when it waits for
    /// nothing, else as a task this client's thread waits for.
    private func run(_ command: PlayerCommand) throws(MPDError) {
        followFeed()
        lock.withLock { lastFollowed = clock.now }
        let session = session
        do {
            if try session.performAtOnce(command) != nil { return }
        } catch {
            throw Self.error(error)
        }
        let waiter = Waiter()
        Task {
            do {
                _ = try await session.performWaiting(command)
                waiter.finish(nil)
            } catch let error as CommandError {
                waiter.finish(error)
            } catch {
                waiter.finish(CommandError(.playbackFailed, "\(error)"))
            }
        }
        if let failure = waiter.wait() { throw Self.error(failure) }
    }

    private static func error(_ error: CommandError) -> MPDError {
        switch error.code {
        case .noSuchItem: MPDError(.noExist, error.message)
        case .badRequest: MPDError(.argument, error.message)
        default: MPDError(.system, error.message)
        }
    }

    // MARK: - The commands

    func perform(_ words: [String], binaryLimit: Int) throws(MPDError) -> MPDAnswer {
        let name = words[0]
        let arguments = Array(words.dropFirst())
        var answer = MPDAnswer()
        func count(_ range: ClosedRange<Int>) throws(MPDError) {
            guard range.contains(arguments.count) else { throw MPDError(.argument, "wrong number of arguments for \"\(name)\"") }
        }
        switch name {
        case "ping":
            try count(0...0)
        case "status":
            try count(0...0)
            status(into: &answer)
        case "currentsong":
            try count(0...0)
            let (items, _) = queue()
            if let current = session.currentStatus(), let index = items.firstIndex(where: { $0.key == current.id }) {
                song(items[index], details(items[index]), position: index, status: current, into: &answer)
            }
        case "stats":
            try count(0...0)
            let (items, _) = queue()
            let found = details(items)
            answer.add("uptime", Int(clock.now - started))
            answer.add("artists", Set(found.compactMap { $0?.artist }).count)
            answer.add("albums", Set(found.compactMap { $0?.album }).count)
            answer.add("songs", items.count)
            answer.add("db_playtime", Int(zip(items, found).reduce(0.0) { $0 + (Self.duration($1.0, $1.1) ?? 0) }))
            answer.add("db_update", Int(startedWall.timeIntervalSince1970))
        case "tagtypes":
            // `tagtypes all`, `clear`, `enable`, `disable`: every tag is always sent.
            if arguments.isEmpty { for tag in Tag.allCases { answer.add("tagtype", tag.rawValue) } }
        case "outputs":
            try count(0...0)
            answer.add("outputid", 0)
            answer.add("outputname", "mediaplay")
            answer.add("plugin", "sdl")
            answer.add("outputenabled", 1)
        case "decoders":
            try count(0...0)
            answer.add("plugin", "ffmpeg")
            for suffix in ["aac", "flac", "m4a", "mka", "mkv", "mp3", "mp4", "oga", "ogg", "opus", "wav", "webm"] { answer.add("suffix", suffix) }
        case "urlhandlers":
            try count(0...0)
            for scheme in ["file://", "http://", "https://"] { answer.add("handler", scheme) }
        case "replay_gain_status":
            try count(0...0)
            answer.add("replay_gain_mode", session.audioSettings.replayGain.rawValue)

        case "play", "playid":
            try count(0...1)
            let (items, _) = queue()
            if let argument = arguments.first, argument != "-1" {
                let item = name == "play" ? try item(atPosition: argument, in: items) : try item(withID: argument, in: items, command: name)
                if let current = session.currentStatus(), current.id == item.key, current.state == .paused {
                    try run(.play(.id(item.id)))
                } else {
                    try run(.play(.id(item.id), from: 0))
                }
            } else if let current = session.currentStatus(), current.state.isActive {
                if current.state == .paused { try run(.play(.id(current.id.rawValue))) }
            } else if let first = items.first {
                let key = currentKey()
                try run(.play(.id((items.first { $0.key == key } ?? first).id)))
            }
        case "pause":
            try count(0...1)
            guard let current = session.currentStatus(), current.state.isActive else { break }
            let pause = arguments.isEmpty ? current.state != .paused : try Self.flag(words)
            if pause {
                if current.state != .paused { try run(.pause) }
            } else if current.state == .paused {
                try run(.play(.id(current.id.rawValue)))
            }
        case "stop":
            try count(0...0)
            try run(.stop(nil))
        case "next":
            try count(0...0)
            try run(.next)
        case "previous":
            try count(0...0)
            try run(.previous)
        case "seek", "seekid":
            try count(2...2)
            let (items, _) = queue()
            let item = name == "seek" ? try item(atPosition: arguments[0], in: items) : try item(withID: arguments[0], in: items, command: name)
            guard let seconds = Self.seconds(arguments[1]), seconds >= 0 else { throw MPDError(.argument, "Number expected: \(arguments[1])") }
            if session.currentStatus()?.id != item.key || session.currentStatus()?.state.isActive != true {
                try run(.play(.id(item.id), from: seconds))
            } else {
                try run(.seek(.to(seconds), .id(item.id)))
            }
        case "seekcur":
            try count(1...1)
            guard let seconds = Self.seconds(arguments[0]) else { throw MPDError(.argument, "Number expected: \(arguments[0])") }
            guard let current = session.currentStatus(), current.state.isActive else { throw MPDError(.playerSync, "Not playing") }
            let relative = arguments[0].hasPrefix("+") || arguments[0].hasPrefix("-")
            try run(.seek(relative ? .by(seconds) : .to(max(0, seconds)), .id(current.id.rawValue)))
        case "setvol":
            try count(1...1)
            guard let level = Self.integer(arguments[0]), (0...100).contains(level) else { throw MPDError(.argument, "Invalid volume value") }
            try run(.volume(.to(level)))
            if level > 0 && session.audioSettings.muted { try run(.mute(false)) }
        case "volume":
            try count(1...1)
            guard let step = Self.integer(arguments[0]), (-100...100).contains(step) else { throw MPDError(.argument, "Invalid volume value") }
            try run(.volume(.by(step)))
        case "getvol":
            try count(0...0)
            answer.add("volume", Self.volume(session.audioSettings))
        case "repeat":
            let on = try Self.flag(words)
            let mode = session.playlistMode
            try run(.setRepeat(on ? (Self.single(mode) ? .one : .all) : .off))
        case "single":
            guard arguments.count == 1, ["0", "1"].contains(arguments[0]) else {
                throw MPDError(.argument, arguments.first == "oneshot" ? "mediaplay has no single oneshot mode" : "Boolean (0/1) expected")
            }
            let on = arguments[0] == "1"
            let mode = session.playlistMode
            if mode.repeat != .off {
                try run(.setRepeat(on ? .one : .all))
            } else {
                try run(.autoplay(!on))
            }
        case "random":
            try run(.shuffle(try Self.flag(words)))
        case "consume":
            guard try !Self.flag(words) else { throw MPDError(.argument, "mediaplay has no consume mode (the queue is the feed)") }
        case "crossfade":
            try count(1...1)
            guard let seconds = Self.integer(arguments[0]), seconds >= 0 else { throw MPDError(.argument, "Integer expected: \(arguments[0])") }
            guard seconds == 0 else { throw MPDError(.argument, "mediaplay does not crossfade") }

        case "playlistinfo", "playlistid", "playlist":
            try count(0...1)
            let (items, _) = queue()
            var chosen = Array(items.indices)
            if let argument = arguments.first {
                if name == "playlistid" {
                    let item = try item(withID: argument, in: items, command: name)
                    chosen = items.firstIndex(of: item).map { [$0] } ?? []
                } else {
                    chosen = try Self.range(argument, count: items.count)
                }
            }
            let found = details(chosen.map { items[$0] })
            for (offset, index) in chosen.enumerated() {
                if name == "playlist" {
                    answer.add("\(index)", "file: \(Self.file(items[index]))")
                } else {
                    song(items[index], found[offset], position: index, status: nil, into: &answer)
                }
            }
        case "plchanges", "plchangesposid":
            try count(1...2)
            guard let since = Self.integer(arguments[0]) else { throw MPDError(.argument, "Integer expected: \(arguments[0])") }
            let (items, version) = queue()
            // Versions are not kept item by item: any older one gets the whole queue.
            guard since != version else { break }
            let found = name == "plchanges" ? details(items) : []
            for (index, item) in items.enumerated() {
                if name == "plchanges" {
                    song(item, found[index], position: index, status: nil, into: &answer)
                } else {
                    answer.add("cpos", index)
                    answer.add("Id", id(of: item.key))
                }
            }
        case "add", "addid":
            try count(1...2)
            guard arguments.count == 1 else { throw MPDError(.argument, "mediaplay adds after the feed's items only") }
            let source = try Self.source(arguments[0], localFiles: localFiles)
            let (items, _) = queue()
            let item = items.first { $0.source == source } ?? session.oneOffItem(source)
            let change = queueChanged()
            changed(change)
            if name == "addid" { answer.add("Id", id(of: item.key)) }
        case "delete", "deleteid", "clear", "move", "moveid":
            throw MPDError(.argument, "the queue is the feed: edit the feed file to change it (\(name) is not supported)")

        case "list":
            try count(1...Int.max)
            guard let tag = Tag.named(arguments[0]) else { throw MPDError(.argument, "Unknown tag type: \(arguments[0])") }
            var rest = Array(arguments.dropFirst())
            // Grouping is not done: the values of the one tag are listed.
            if let group = rest.firstIndex(where: { $0.lowercased() == "group" }) { rest = Array(rest[..<group]) }
            let filter: Filter = rest.count == 1 && tag == .album && !rest[0].hasPrefix("(") ? Filter(terms: [(.artist, .equals, rest[0])]) : try Filter(rest, exact: true)
            let (items, _) = queue()
            let found = details(items)
            var values = Set<String>()
            for (item, tags) in zip(items, found) where filter.matches(item, tags) {
                if let value = Self.value(tag, item, tags) { values.insert(value) }
            }
            for value in values.sorted() { answer.add(tag.rawValue, value) }
        case "find", "search":
            try count(1...Int.max)
            let filter = try Filter(arguments, exact: name == "find")
            let (items, _) = queue()
            let found = details(items)
            for (item, tags) in zip(items, found) where filter.matches(item, tags) { song(item, tags, position: nil, status: nil, into: &answer) }
        case "count":
            try count(1...Int.max)
            let filter = try Filter(arguments, exact: true)
            let (items, _) = queue()
            let found = details(items)
            var songs = 0
            var time = 0.0
            for (item, tags) in zip(items, found) where filter.matches(item, tags) {
                songs += 1
                time += Self.duration(item, tags) ?? 0
            }
            answer.add("songs", songs)
            answer.add("playtime", Int(time))
        case "lsinfo", "listall", "listallinfo":
            try count(0...1)
            let (items, _) = queue()
            var chosen = items
            if let uri = arguments.first, !uri.isEmpty, uri != "/" {
                chosen = items.filter { Self.file($0) == uri }
                guard !chosen.isEmpty else { throw MPDError(.noExist, "No such directory") }
            }
            if name == "listall" {
                for item in chosen { answer.add("file", Self.file(item)) }
            } else {
                let found = details(chosen)
                for (item, tags) in zip(chosen, found) { song(item, tags, position: nil, status: nil, into: &answer) }
            }
        case "albumart", "readpicture":
            try count(2...2)
            guard let offset = Self.integer(arguments[1]), offset >= 0 else { throw MPDError(.argument, "Integer expected: \(arguments[1])") }
            let (items, _) = queue()
            guard let item = items.first(where: { Self.file($0) == arguments[0] }) else { throw MPDError(.noExist, "No file exists") }
            // readpicture is for a picture inside the file: mediaplay does not take those out.
            guard name == "albumart" else { break }
            guard let path = cover(item), let (size, chunk) = Self.pictureChunk(path, offset: offset, count: binaryLimit) else {
                throw MPDError(.noExist, "No file exists")
            }
            guard offset <= size else { throw MPDError(.argument, "Offset too large") }
            answer.add("size", size)
            answer.addBinary(chunk[...])
        default:
            throw MPDError(.unknown, "unknown command \"\(name)\"")
        }
        return answer
    }

    // MARK: - Answers

    private func details(_ item: FeedItem) -> MediaDetails? { details([item]).first ?? nil }

    static func volume(_ settings: AudioSettings) -> Int { settings.muted ? 0 : min(settings.volume, 100) }

    /// MPD's single: stop after the current song (autoplay off), or repeat it.
    static func single(_ mode: PlaylistMode) -> Bool { mode.repeat == .one || (mode.repeat == .off && !mode.autoplay) }

    private func status(into answer: inout MPDAnswer) {
        let (items, version) = queue()
        let settings = session.audioSettings
        let mode = session.playlistMode
        let current = session.currentStatus()
        let key: ItemKey?
        if let current {
            noteCurrent(current.id)
            key = current.id
        } else {
            key = lock.withLock { lastCurrent }
        }
        answer.add("volume", Self.volume(settings))
        answer.add("repeat", mode.repeat != .off ? 1 : 0)
        answer.add("random", mode.shuffle ? 1 : 0)
        answer.add("single", Self.single(mode) ? 1 : 0)
        answer.add("consume", 0)
        answer.add("partition", "default")
        answer.add("playlist", version)
        answer.add("playlistlength", items.count)
        answer.add("mixrampdb", 0)
        let state: String
        switch current?.state {
        case .playing?, .buffering?, .downloading?: state = "play"
        case .paused?: state = "pause"
        default: state = "stop"
        }
        answer.add("state", state)
        guard let key, let index = items.firstIndex(where: { $0.key == key }) else { return }
        answer.add("song", index)
        answer.add("songid", id(of: key))
        if let current, state != "stop" {
            let duration = current.duration ?? Self.duration(items[index], nil)
            answer.add("time", "\(Int(current.position.rounded())):\(Int((duration ?? 0).rounded()))")
            answer.add("elapsed", seconds: current.position)
            if let duration { answer.add("duration", seconds: duration) }
        }
        // The next song when it is known: in order, playing on.
        if !mode.shuffle, mode.repeat != .one, mode.autoplay {
            let next = index + 1 < items.count ? index + 1 : (mode.repeat == .all ? 0 : nil)
            if let next {
                answer.add("nextsong", next)
                answer.add("nextsongid", id(of: items[next].key))
            }
        }
    }

    /// An item as MPD describes a song: file, tags, length, then its place
    /// in the queue (`Pos`, `Id`) when it is listed as part of it.
    private func song(_ item: FeedItem, _ tags: MediaDetails?, position: Int?, status: ItemStatus?, into answer: inout MPDAnswer) {
        answer.add("file", Self.file(item))
        if let artist = tags?.artist, !artist.isEmpty { answer.add("Artist", artist) }
        answer.add("Title", tags?.title.flatMap { $0.isEmpty ? nil : $0 } ?? item.title)
        if let album = tags?.album, !album.isEmpty { answer.add("Album", album) }
        if let track = tags?.track { answer.add("Track", track) }
        if let duration = status?.duration ?? Self.duration(item, tags) {
            answer.add("Time", Int(duration.rounded()))
            answer.add("duration", seconds: duration)
        }
        if let position {
            answer.add("Pos", position)
            answer.add("Id", id(of: item.key))
        }
    }

    static func duration(_ item: FeedItem, _ tags: MediaDetails?) -> Double? {
        (tags?.duration ?? item.duration).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }

    /// `count` bytes of a picture at `offset`, and its size: only from a
    /// regular file of at most 16 MiB, and only the chunk is read (a client
    /// fetches a cover 8 KiB at a time; a FIFO is never opened).
    static func pictureChunk(_ path: String, offset: Int, count: Int) -> (size: Int, chunk: [UInt8])? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 16 << 20 else { return nil }
        let size = Int(info.st_size)
        guard offset < size else { return (size, []) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: min(count, size - offset))
        let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard read >= 0 else { return nil }
        chunk.removeLast(chunk.count - read)
        return (size, chunk)
    }

    /// The `file` of an item: its path or URL (the item's id when it has neither).
    static func file(_ item: FeedItem) -> String {
        item.source?.description.redactingUserinfo ?? item.id
    }

    /// What `add` names: an http(s) URL, or (with `localFiles`) an absolute
    /// path that can be read here or a file:// URL.
    static func source(_ text: String, localFiles: Bool) throws(MPDError) -> MediaSource {
        if text.hasPrefix("/") || text.hasPrefix("file://") {
            guard localFiles else {
                throw MPDError(.permission, "Access denied: local files are added only with a password set ([mpd] password), or with mediaplay toggle PATH")
            }
            let path = text.hasPrefix("/") ? text : (URL(string: text)?.path ?? "")
            guard path.hasPrefix("/"), LocalFile.isReadable(path) else { throw MPDError(.noExist, "No such file: \(text)") }
            return .file(path)
        }
        if let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil {
            return .remote(url)
        }
        throw MPDError(.noExist, "Unsupported URI scheme or no such file: \(text)")
    }

    static func range(_ text: String, count: Int) throws(MPDError) -> [Int] {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let start = integer(parts[0]), start >= 0 else { throw MPDError(.argument, "Integer expected: \(text)") }
        if parts.count == 1 {
            guard start < count else { throw MPDError(.argument, "Bad song index") }
            return [start]
        }
        guard parts.count == 2 else { throw MPDError(.argument, "Integer expected: \(text)") }
        let end = parts[1].isEmpty ? count : (integer(parts[1]) ?? -1)
        guard end >= start else { throw MPDError(.argument, "Bad song range") }
        guard start <= count else { throw MPDError(.argument, "Bad song index") }
        return Array(start..<min(end, count))
    }

    // MARK: - Tags and filters

    enum Tag: String, CaseIterable {
        case artist = "Artist", album = "Album", title = "Title", track = "Track"

        static func named(_ name: String) -> Tag? { allCases.first { $0.rawValue.lowercased() == name.lowercased() } }
    }

    static func value(_ tag: Tag, _ item: FeedItem, _ tags: MediaDetails?) -> String? {
        switch tag {
        case .artist: tags?.artist
        case .album: tags?.album
        case .title: tags?.title ?? item.title
        case .track: tags?.track.map(String.init)
        }
    }

    /// `find`/`search`'s terms: `TAG VALUE` pairs, or one expression
    /// `(TAG == 'VALUE')`, `(TAG != ...)`, `(TAG contains ...)`; `any` and
    /// `file` besides the tags.
    struct Filter {
        enum Operation { case equals, differs, contains }
        var terms: [(field: String, operation: Operation, value: String)]

        init(terms: [(Tag, Operation, String)]) {
            self.terms = terms.map { ($0.0.rawValue.lowercased(), $0.1, $0.2) }
        }

        init(_ words: [String], exact: Bool) throws(MPDError) {
            terms = []
            var index = 0
            while index < words.count {
                let word = words[index]
                if word.hasPrefix("(") {
                    terms.append(try Self.expression(word))
                    index += 1
                    continue
                }
                guard index + 1 < words.count else { throw MPDError(.argument, "Incorrect number of filter arguments") }
                let field = word.lowercased()
                guard Self.fields.contains(field) else { throw MPDError(.argument, "Unknown filter type: \(word)") }
                terms.append((field, exact ? .equals : .contains, words[index + 1]))
                index += 2
            }
        }

        static let fields: Set<String> = ["artist", "album", "title", "track", "file", "any"]

        private static func expression(_ text: String) throws(MPDError) -> (String, Operation, String) {
            guard text.hasSuffix(")") else { throw MPDError(.argument, "Unmatched '('") }
            let inner = text.dropFirst().dropLast()
            guard !inner.contains("(") else { throw MPDError(.argument, "mediaplay reads one (TAG OP 'VALUE') expression") }
            let parts = inner.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
            guard parts.count == 3 else { throw MPDError(.argument, "Expected (TAG OP 'VALUE')") }
            let field = parts[0].lowercased()
            guard fields.contains(field) else { throw MPDError(.argument, "Unknown filter type: \(parts[0])") }
            let operation: Operation
            switch parts[1] {
            case "==": operation = .equals
            case "!=": operation = .differs
            case "contains": operation = .contains
            default: throw MPDError(.argument, "mediaplay reads ==, != and contains, not \(parts[1])")
            }
            var value = parts[2]
            guard value.count >= 2, let quote = value.first, quote == "'" || quote == "\"", value.last == quote else { throw MPDError(.argument, "Quoted value expected") }
            value = String(value.dropFirst().dropLast())
            var unescaped = ""
            var escaping = false
            for character in value {
                if !escaping && character == "\\" { escaping = true; continue }
                escaping = false
                unescaped.append(character)
            }
            return (field, operation, unescaped)
        }

        func matches(_ item: FeedItem, _ tags: MediaDetails?) -> Bool {
            terms.allSatisfy { term in
                let values: [String]
                switch term.field {
                case "file": values = [MPDCommands.file(item)]
                case "any": values = Tag.allCases.compactMap { MPDCommands.value($0, item, tags) } + [MPDCommands.file(item)]
                default: values = Tag.named(term.field).flatMap { MPDCommands.value($0, item, tags) }.map { [$0] } ?? []
                }
                switch term.operation {
                case .equals: return values.contains(term.value)
                case .differs: return !values.contains(term.value)
                case .contains: return values.contains { $0.localizedCaseInsensitiveContains(term.value) }
                }
            }
        }
    }
}

/// A client's thread waiting for a command's task.
private final class Waiter: @unchecked Sendable {
    private let condition = NSCondition()
    private var done = false
    private var failure: CommandError?

    func finish(_ error: CommandError?) {
        condition.withLock {
            failure = error
            done = true
            condition.signal()
        }
    }

    func wait() -> CommandError? {
        condition.withLock {
            while !done { condition.wait() }
            return failure
        }
    }
}
