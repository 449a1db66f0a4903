import Dispatch
import Foundation
import MediaCache
import MediaControl
import MediaEngine
import MediaFeed
import MediaModel
import MediaSession
import MediaTerminal
import MediaWiring

/// Where a browse's one-line messages (warnings from the players it starts)
/// go: the status bar, once the view runs.
public final class MessageRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (String) -> Void)?

    public init() {}

    public func post(_ message: String) {
        lock.withLock { handler }?(message)
    }

    func connect(_ handler: @escaping @Sendable (String) -> Void) {
        lock.withLock { self.handler = handler }
    }
}

/// `mediaplay browse`: the grid of cells and the detail view, in the
/// terminal. All state lives on one serial queue; input (a thread blocked
/// in `read`), signals, the player's events and finished pictures post to
/// it. A frame is drawn only when something changed, at most 12 times a
/// second, and only the changed rows are written; with nothing moving on
/// screen nothing runs.
public final class BrowseApp: @unchecked Sendable {
    public struct Options: Sendable {
        public var imageMode: ImageMode
        public var colors: Bool
        /// What the keys browse does not use itself do.
        public var keymap: Keymap
        /// A podcast client's marks at the start: the media URLs played to
        /// their end, and the ids of items new since the feed's first read.
        public var played: Set<String>
        public var fresh: Set<String>

        public init(imageMode: ImageMode, colors: Bool, keymap: Keymap = .standard, played: Set<String> = [], fresh: Set<String> = []) {
            self.imageMode = imageMode
            self.colors = colors
            self.keymap = keymap
            self.played = played
            self.fresh = fresh
        }
    }

    private static let frameInterval = 1.0 / 12
    private static let spinnerInterval = 0.1

    private let queue = DispatchQueue(label: "mediaplay.browse", qos: .userInteractive)
    private let screen: FullScreen
    private let backend: any BrowsePlayback
    private let cache: MediaCache?
    /// Reads the feed again: the feed, and the offline notice when it is the kept copy.
    private let reload: @Sendable () throws -> (Feed, offline: String?, details: [MediaDetails?])
    /// Each item's artist, by id, from the details known as the feed loaded.
    private var artists: [String: String] = [:]
    private let options: Options
    private let renderer: TerminalImageRenderer
    private var pictures: PictureStore!
    /// The newest frame of each video playing in the view (no window here),
    /// and that frame rendered for the size last drawn: a redraw for another
    /// reason (a spinner, a key) does not render it again.
    private var videoFrames: [ItemKey: RGBAPicture] = [:]
    /// The subtitle showing with each playing video's newest frame.
    private var videoSubtitles: [ItemKey: String] = [:]
    private var renderedFrames: [ItemKey: (columns: Int, rows: Int, image: TerminalImage?)] = [:]

    // Confined to `queue`.
    /// Feed, selection, mode and message: changed by keys in `BrowseState`.
    private var state: BrowseState
    private var feed: ShownFeed { state.feed }
    private var statuses: [ItemKey: ItemStatus] = [:]
    /// Why a playing video's pictures are not here (the background player's); nil: they are.
    private var pictureNotice: String?
    /// Media URLs played to their end (kept by URL, as `list` shows them).
    private var played: Set<String> = []
    /// Where each source's file is on this machine (a readable local file,
    /// or the cache's complete entry), or nil: looked up once, forgotten
    /// when a download ends or the feed is re-read, so a redraw stats nothing.
    private var onDisk: [MediaSource: String?] = [:]
    /// Each item's probed duration, tags and format (by id), asked for when
    /// its detail view is drawn; nil inside: asked, or nothing to probe.
    private var details: [String: MediaDetails?] = [:]
    /// Bumped when the feed is replaced (the layout depends on its titles).
    private var feedGeneration = 0
    private var lastWanted: [MediaSource] = []
    private var layout: GridLayout?
    private var layoutKey: LayoutKey?
    private var scrollTop = 0
    private var offline: Bool
    private var frame = ScreenFrame()
    private var placed: [GraphicsPlacement] = []
    private var drawScheduled = false
    private var lastDraw = 0.0
    private var quitting = false
    private var signalWatch: ProcessSignals.Watch?
    private var finished: CheckedContinuation<Int32, Never>?

    /// The grid over `items` (SearchTiming lays it out the same way): a
    /// video always has its picture's place; other items when `hasPicture`.
    static func layout(
        _ items: ShownItems, width: Int, height: Int, pictures: Bool, artists: [String: String], hasPicture: @escaping (FeedItem) -> Bool
    ) -> GridLayout {
        GridLayout(width: width, height: height, count: items.count, pictures: pictures, artists: !artists.isEmpty) { index in
            let item = items[index]
            return GridLayout.Cell(title: item.title, hasPicture: item.kind == .video && item.isValid || hasPicture(item), artist: artists[item.id])
        }
    }

    /// Whether some item of the feed has a picture, for a feed generation.
    private var hasPicturesFor: (generation: Int, pictures: Bool)?

    private struct LayoutKey: Equatable {
        var columns: Int
        var rows: Int
        var feedGeneration: Int
        /// The items shown changed (a search narrowed the grid).
        var shown: Int
    }

    public init(
        feed: Feed, offline: String? = nil, cache: MediaCache?, backend: any BrowsePlayback, relay: MessageRelay, video: VideoRelay? = nil,
        options: Options, screen: FullScreen = FullScreen(), details: [MediaDetails?] = [],
        reload: @escaping @Sendable () throws -> (Feed, offline: String?, details: [MediaDetails?])
    ) {
        state = BrowseState(feed: feed, keymap: options.keymap, message: offline, details: details)
        artists = Self.artists(feed, details)
        played = options.played
        self.offline = offline != nil
        self.cache = cache
        self.backend = backend
        self.options = options
        self.screen = screen
        self.reload = reload
        renderer = TerminalImageRenderer(mode: options.imageMode, colors: options.colors)
        // A finished picture download may be an image item's own file: what
        // the cells know of the cache is read again.
        pictures = PictureStore(cache: cache) { [self] downloaded in
            self.queue.async {
                if downloaded {
                    self.onDisk = [:]
                    self.details = self.details.filter { $0.value != nil }
                }
                self.setNeedsDisplay()
            }
        }
        relay.connect { [self] text in self.queue.async { self.show(text) } }
        video?.connect { [self] key, picture, subtitle in
            self.queue.async {
                self.videoFrames[key] = picture
                self.videoSubtitles[key] = subtitle
                self.renderedFrames[key] = nil
                self.setNeedsDisplay()
            }
        }
    }

    /// Runs until the user quits (or a signal ends it); returns the exit status.
    public func run() async throws(TerminalError) -> Int32 {
        try screen.enter()
        return await withCheckedContinuation { continuation in
            queue.async { [self] in
                finished = continuation
                installSignals()
                startInput()
                startEvents()
                prepareSearch()
                setNeedsDisplay()
            }
        }
    }

    // MARK: - Sources of change

    private func startInput() {
        let input = screen.input
        let thread = Thread { [self] in
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    // The terminal went away (hangup): nothing more to show.
                    self.queue.async { self.quit(status: 129) }
                    return
                }
                let keys = decoder.decode(buffer[0..<count])
                self.queue.async { self.handle(keys) }
            }
        }
        thread.name = "mediaplay.browse.input"
        thread.start()
    }

    /// The search index, made off this queue once per feed.
    private func prepareSearch() {
        let (items, details) = state.searchSource
        DispatchQueue.global(qos: .utility).async { [self] in
            let index = ItemSearch(items: items, details: details)
            queue.async { [self] in state.useSearch(index, madeFor: items) }
        }
    }

    private func startEvents() {
        let backend = backend
        Task { [self] in
            let all = await backend.statuses()
            let notice = await backend.pictureNotice()
            self.queue.async { [self] in
                for status in all { statuses[status.id] = status }
                pictureNotice = notice
                setNeedsDisplay()
            }
        }
        let events = backend.events()
        Task { [self] in
            for await event in events {
                queue.async { self.received(event.status) }
            }
        }
    }

    private func received(_ status: ItemStatus) {
        let before = statuses[status.id]
        statuses[status.id] = status
        let item = feed.item(matching: .id(status.id.rawValue))
        // Played to its end: marked so in the grid too.
        if status.state == .ended, let url = item?.source?.description { played.insert(url) }
        // A live stream's now-playing line, on the status bar when it changes.
        if let title = status.streamTitle, !title.isEmpty, title != before?.streamTitle {
            show("♪ \(status.title) · \(title)")
        }
        // A download that ended may have filled the cache.
        if status.state != .downloading, let source = item?.source {
            onDisk[source] = nil
        }
        setNeedsDisplay()
    }

    /// Each signal is handled on the app's queue, like a key.
    private func installSignals() {
        signalWatch = ProcessSignals.shared.watch([SIGWINCH, SIGTERM, SIGINT, SIGHUP, SIGTSTP, SIGCONT]) { [queue, unowned self] number in
            queue.async { [unowned self] in handleSignal(number) }
        }
    }

    private func handleSignal(_ number: Int32) {
        switch number {
        case SIGWINCH: frame.invalidate(); setNeedsDisplay()
        case SIGTERM: quit(status: 143)
        case SIGINT: quit(status: 130)
        case SIGHUP: quit(status: 129)
        case SIGTSTP: suspend()
        // Continued after a stop we did not make (kill -STOP): take the screen back.
        case SIGCONT: try? screen.enter(); frame.invalidate(); setNeedsDisplay()
        default: break
        }
    }

    private func suspend() {
        screen.suspend()
        frame.invalidate()
        placed = []
        setNeedsDisplay()
    }

    private func quit(status: Int32) {
        guard !quitting else { return }
        quitting = true
        screen.leave()
        // The watch stays: a second signal while shutting down finds `quitting` set.
        let backend = backend
        let finished = finished
        Task {
            await backend.shutdown()
            finished?.resume(returning: status)
        }
    }

    private func show(_ text: String) {
        state.message = text
        setNeedsDisplay()
    }

    // MARK: - Keys

    private func handle(_ keys: [Key]) {
        for key in keys where !quitting {
            handle(key)
        }
        setNeedsDisplay()
    }

    private func handle(_ key: Key) {
        let effects = state.handle(key, on: BrowseState.Screen(layout: layout, rows: screen.size().rows, scrollTop: scrollTop))
        for effect in effects {
            switch effect {
            case let .quit(status): quit(status: status)
            case .suspend: suspend()
            case .redrawAll:
                frame.invalidate()
                placed = []
            case .refresh: refresh()
            case let .toggle(item): toggle(item)
            case let .perform(command): perform(command)
            }
        }
    }

    /// A playback command from the keymap, through the backend (this process
    /// or the background player, the same value), its outcome said on the
    /// status bar.
    private func perform(_ command: PlayerCommand) {
        let backend = backend
        Task { [self] in
            do {
                let outcome = try await backend.perform(command)
                self.queue.async { self.said(outcome) }
            } catch {
                self.queue.async { self.show("✗ " + Self.message(of: error)) }
            }
        }
    }

    /// What a command left, on the status bar.
    private func said(_ outcome: PlayerOutcome) {
        switch outcome {
        case let .item(status?): received(status)
        case .item(nil): break
        case let .audio(settings): show(settings.line)
        case let .playlist(mode): show(mode.line)
        case let .sleep(status): show(status.line)
        }
    }

    /// A refusal's own words, whichever backend said it.
    private static func refusal(of error: any Error) -> String? {
        if let error = error as? CommandError { return error.message }
        if case let .refused(refusal)? = error as? ControlClientError { return refusal.message }
        return nil
    }

    private static func message(of error: any Error) -> String {
        refusal(of: error) ?? "\(error)"
    }

    private func toggle(_ item: FeedItem) {
        let backend = backend
        Task { [self] in
            do {
                let status = try await backend.toggle(item)
                self.queue.async { self.received(status) }
            } catch {
                // The command layer's messages name the item already.
                let message = Self.refusal(of: error) ?? "\(item.position) \"\(item.title)\": \(error)"
                self.queue.async { self.show("✗ " + message) }
            }
        }
    }

    /// `r`: re-reads the feed, keeps the selection on the same item and
    /// what plays playing, and revalidates the pictures with their servers.
    private func refresh() {
        let reload = reload
        let backend = backend
        DispatchQueue.global().async { [self] in
            let result = Result { try reload() }
            self.queue.async { [self] in
                switch result {
                case let .failure(error):
                    show("✗ refresh failed: \(error) (the feed shown is the last good one)")
                case let .success((newFeed, offlineNotice, newDetails)):
                    offline = offlineNotice != nil
                    state.replaceFeed(newFeed, details: newDetails)
                    prepareSearch()
                    artists = Self.artists(newFeed, newDetails)
                    onDisk = [:]
                    details = [:]
                    feedGeneration += 1
                    lastWanted = []
                    pictures.reset()
                    frame.invalidate()
                    show(offlineNotice ?? "refreshed: \(newFeed.items.count) item\(newFeed.items.count == 1 ? "" : "s")")
                    Task { [self] in
                        let dropped = await backend.update(feed: newFeed)
                        let all = await backend.statuses()
                        self.queue.async { [self] in
                            for status in all { statuses[status.id] = status }
                            if !dropped.isEmpty {
                                show("refreshed; stopped what is no longer in the feed: " + dropped.map { "\"\($0.title)\"" }.joined(separator: ", "))
                            }
                            setNeedsDisplay()
                        }
                    }
                }
            }
        }
    }

    // MARK: - State of the cells

    /// The item's probed details if known; the first ask probes it off this
    /// queue (a file read) and redraws when done.
    private func itemDetails(_ index: Int) -> MediaDetails? {
        let item = feed.items[index]
        if let known = details[item.id] { return known }
        details[item.id] = .some(nil)
        let cache = cache
        DispatchQueue.global().async { [self] in
            let found = ItemDetails.lookup([item], cache: cache)[0]
            guard let found else { return }
            queue.async { [self] in
                details[item.id] = found
                setNeedsDisplay()
            }
        }
        return nil
    }

    private func localPath(_ source: MediaSource) -> String? {
        if let known = onDisk[source] { return known }
        let path: String?
        switch source {
        case let .file(file): path = LocalFile.isReadable(file) ? file : nil
        case let .remote(url): path = cache?.cachedFile(for: url)
        }
        onDisk[source] = .some(path)
        return path
    }

    private func pictureSource(_ item: FeedItem) -> MediaSource? {
        guard item.isValid else { return nil }
        if item.kind == .image { return item.source }
        if let thumbnail = item.thumbnail { return thumbnail }
        // A video at hand shows a frame of itself.
        guard item.kind == .video, let source = item.source else { return nil }
        return localPath(source).map { .file($0) }
    }

    /// ✓ played, • new (a podcast client's marks), else nothing.
    private func mark(_ index: Int) -> String? {
        let item = feed.items[index]
        if let url = item.source?.description, played.contains(url) { return "✓" }
        return options.fresh.contains(item.id) ? "•" : nil
    }

    private func cellState(_ index: Int) -> CellState {
        let item = feed.items[index]
        if let reason = item.invalidReason { return .invalid(reason) }
        let status = statuses[item.key]
        switch status?.state {
        case .playing?: return .playing(status!.position, status!.duration)
        case .paused?: return .paused(status!.position, status!.duration)
        case .buffering?: return .buffering(status!.position, status!.progress)
        case .downloading?: return .downloading(status!.progress)
        case .ended?: return .ended(status!.duration)
        case .failed?:
            // A local file that is gone reads missing, however it was played.
            if case let .file(path)? = item.source, localPath(.file(path)) == nil { return .missing("no readable file at \(path)") }
            return .failed(status!.error ?? "failed")
        case .idle?, .stopped?, nil: break
        }
        if item.kind == .image, let source = item.source {
            switch pictures.state(of: source) {
            case let .downloading(fraction)?: return .downloading(fraction)
            case let .failed(reason)?: return .failed(reason)
            default: break
            }
        }
        let resume = status?.position ?? 0
        let (availability, detail) = item.availability(isReadable: { localPath(.file($0)) != nil }) { url in
            localPath(.remote(url)) != nil ? .cached : .notDownloaded
        }
        switch availability {
        case .local: return .local(resumeAt: resume)
        case .cached: return .cached(resumeAt: resume)
        case .textOnly: return .textOnly
        case .missing: return .missing(detail ?? "")
        case .invalid: return .invalid(detail ?? "")
        case .notDownloaded, .downloading, .partial, .failed: return .notDownloaded(resumeAt: resume)
        }
    }

    private func pictureCell(_ index: Int, columns: Int, rows: Int, size: FullScreen.Size) -> PictureCell {
        // A video playing here shows its newest frame instead of its thumbnail.
        let key = feed.items[index].key
        if options.imageMode != .none, let frame = videoFrames[key] {
            // The subtitle on the rows under the picture, a row at least left to it.
            let lines = videoSubtitles[key].map { SubtitleLayout.rows($0, width: columns, maximum: min(SubtitleLayout.maximumRows, rows - 1)) } ?? []
            let rows = rows - lines.count
            var image: TerminalImage?
            if let rendered = renderedFrames[key], rendered.columns == columns, rendered.rows == rows {
                image = rendered.image
            } else {
                image = renderer.render(frame, columns: columns, rows: rows, cellWidth: size.cellWidth ?? 10, cellHeight: size.cellHeight ?? 20)
                renderedFrames[key] = (columns, rows, image)
            }
            let picture: PictureCell = image.map { .image($0) } ?? .loading(nil)
            return lines.isEmpty ? picture : .subtitled(lines, over: picture)
        }
        let picture = thumbnailCell(index, columns: columns, rows: rows, size: size)
        // A video the background player plays: where its pictures are, over its thumbnail.
        if let notice = pictureNotice, feed.items[index].kind == .video,
           let state = statuses[key]?.state, [.playing, .paused, .buffering, .downloading].contains(state) {
            return .notice(notice, over: picture)
        }
        return picture
    }

    private func thumbnailCell(_ index: Int, columns: Int, rows: Int, size: FullScreen.Size) -> PictureCell {
        // A video with no picture at hand yet still has its place (its frames fill it as it plays).
        guard let source = pictureSource(feed.items[index]) else { return feed.items[index].kind == .video ? .unavailable : .none }
        guard options.imageMode != .none else { return .unavailable }
        switch pictures.state(of: source) {
        case .ready?:
            let image = pictures.image(
                for: source, columns: columns, rows: rows, renderer: renderer,
                cellWidth: size.cellWidth ?? 10, cellHeight: size.cellHeight ?? 20
            )
            return image.map { .image($0) } ?? .loading(nil)
        case let .downloading(fraction)?: return .loading(fraction)
        case .failed?: return .unavailable
        case .queued?, .decoding?, nil: return .loading(nil)
        }
    }

    // MARK: - Drawing

    private func setNeedsDisplay() {
        guard !drawScheduled, !quitting else { return }
        drawScheduled = true
        let wait = max(0, lastDraw + Self.frameInterval - Self.now())
        queue.asyncAfter(deadline: .now() + wait) { [self] in self.draw() }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func artists(_ feed: Feed, _ details: [MediaDetails?]) -> [String: String] {
        var artists: [String: String] = [:]
        for (item, known) in zip(feed.items, details) { if let artist = known?.artist, !artist.isEmpty { artists[item.id] = artist } }
        return artists
    }

    /// The query line, or the kept filter's line.
    private var searchLine: String? {
        guard let count = state.matchCount else { return nil }
        let query = DisplayWidth.singleLine(state.query)
        return state.mode == .search ? "/\(query)▏  \(count)" : "\(count) \"\(query)\""
    }

    private func currentLayout(_ size: FullScreen.Size) -> GridLayout {
        let key = LayoutKey(columns: size.columns, rows: size.rows, feedGeneration: feedGeneration, shown: state.generation)
        if let layout, key == layoutKey { return layout }
        // Whether cells keep a picture's room: once per feed (a scan of every item).
        if hasPicturesFor?.generation != feedGeneration {
            let pictures = state.allItems.items.contains { $0.kind == .image || $0.kind == .video || $0.thumbnail != nil }
            hasPicturesFor = (feedGeneration, pictures)
        }
        let pictures = hasPicturesFor?.pictures ?? true
        let fresh = Self.layout(feed.items, width: size.columns, height: size.rows - BrowseView.chromeRows, pictures: pictures, artists: artists) { [unowned self] item in
            pictureSource(item) != nil
        }
        layout = fresh
        layoutKey = key
        return fresh
    }

    private func draw() {
        drawScheduled = false
        guard !quitting else { return }
        let now = Self.now()
        lastDraw = now
        let size = screen.size()
        let layout = currentLayout(size)
        let viewHeight = size.rows - BrowseView.chromeRows
        scrollTop = layout.scrollTop(showing: state.selection, from: scrollTop, viewHeight: viewHeight)
        let snapshot = BrowseSnapshot(
            columns: size.columns, rows: size.rows, title: feed.title.isEmpty ? "mediaplay" : feed.title,
            items: feed.items, layout: layout, state: { [self] index in cellState(index) }, selection: state.selection, scrollTop: scrollTop,
            mode: state.mode, detailScroll: state.detailScroll, helpScroll: state.helpScroll, search: searchLine, message: state.message, details: { [self] index in itemDetails(index) }, mark: { [self] index in mark(index) },
            chapter: { [self] index in statuses[feed.items[index].key]?.chapter?.line }, offline: offline,
            backendName: backend.name,
            colors: options.colors, tick: Int(now / Self.spinnerInterval),
            picture: { [self] index, columns, rows in pictureCell(index, columns: columns, rows: rows, size: size) }
        )
        let (canvas, graphics) = BrowseView.render(snapshot)
        write(canvas.lines, graphics: graphics)

        // Pictures for the cells on screen first, then a screen ahead.
        let visible = state.mode == .detail ? [state.selection] : layout.visible(scrollTop: scrollTop, viewHeight: viewHeight)
        let ahead = layout.visible(scrollTop: scrollTop + viewHeight, viewHeight: viewHeight)
        var wanted: [MediaSource] = []
        for index in visible + ahead {
            if let source = pictureSource(feed.items[index]), !wanted.contains(source) { wanted.append(source) }
        }
        if wanted != lastWanted {
            pictures.want(wanted)
            lastWanted = wanted
        }

        // Spinners turn only while something on screen moves.
        let moving = visible.contains { cellState($0).isAnimated }
            || visible.contains { index in
                guard let source = pictureSource(feed.items[index]) else { return false }
                if case .downloading? = pictures.state(of: source) { return true }
                return false
            }
        if moving {
            queue.asyncAfter(deadline: .now() + Self.spinnerInterval) { [self] in self.setNeedsDisplay() }
        }
    }

    /// Writes the frame's changed rows; pixel pictures are drawn again when
    /// they moved or a row under them was rewritten (text erases them).
    private func write(_ lines: [String], graphics: [GraphicsPlacement]) {
        let (text, changedRows) = frame.update(to: lines)
        guard options.imageMode.usesPixels else {
            if !text.isEmpty { screen.write(text) }
            return
        }
        let covered = Set(placed.flatMap { $0.row..<($0.row + $0.rows) })
        if graphics == placed && covered.isDisjoint(with: changedRows) {
            if !text.isEmpty { screen.write(text) }
            return
        }
        frame.invalidate()
        var output = options.imageMode == .kitty ? "\u{1B}_Ga=d\u{1B}\\" : ""
        output += frame.update(to: lines).output
        for placement in graphics {
            output += "\u{1B}[\(placement.row + 1);\(placement.column + 1)H" + placement.graphics
        }
        placed = graphics
        screen.write(output)
    }
}
