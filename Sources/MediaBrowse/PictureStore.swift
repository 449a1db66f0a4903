import Foundation
import MediaCache
import MediaEngine
import MediaFeed

/// The pictures of the cells: downloaded through the cache (at most a few at
/// once, the wanted ones in the order asked), decoded and scaled on a queue
/// of their own, and rendered for the terminal once per size. Nothing here
/// blocks the caller: it asks, and `onChange` says when there is news.
final class PictureStore: @unchecked Sendable {
    enum State: Equatable {
        case queued
        case downloading(fraction: Double?)
        case decoding
        case ready
        case failed(String)
    }

    /// The largest picture kept, in pixels (enough for a detail view's
    /// blocks; sixel and kitty scale it up a little on large screens).
    static let maximumSize = (width: 480, height: 360)

    private let cache: MediaCache?
    private let maximumDownloads: Int
    /// Called on news; true when a download ended (the cache may hold a new file).
    private let onChange: @Sendable (_ downloaded: Bool) -> Void
    private let work = DispatchQueue(label: "mediaplay.browse.pictures", qos: .utility)

    private let lock = NSLock()
    // Guarded by `lock`.
    private var states: [MediaSource: State] = [:]
    private var pictures: [MediaSource: RGBAPicture] = [:]
    private var rendered: [RenderKey: TerminalImage] = [:]
    private var rendering: Set<RenderKey> = []
    private var pending: [MediaSource] = []
    private var running = 0
    private var revalidate: Set<MediaSource> = []

    struct RenderKey: Hashable {
        var source: MediaSource
        var columns: Int
        var rows: Int
    }

    init(cache: MediaCache?, maximumDownloads: Int = 3, onChange: @escaping @Sendable (_ downloaded: Bool) -> Void) {
        self.cache = cache
        self.maximumDownloads = maximumDownloads
        self.onChange = onChange
    }

    func state(of source: MediaSource) -> State? {
        lock.withLock { states[source] }
    }

    /// Sets what is wanted, most wanted first (the cells on screen, then a
    /// screen ahead). Wanted pictures not started yet start in this order as
    /// download slots free up; ones no longer wanted wait (a transfer under
    /// way finishes: it is cheaper to finish than to redo).
    func want(_ sources: [MediaSource]) {
        let start: [MediaSource] = lock.withLock {
            pending = sources.filter { states[$0] == nil || states[$0] == .queued }
            for source in pending { states[source] = .queued }
            return takeStartableLocked()
        }
        for source in start { load(source) }
    }

    /// Forgets every picture (refresh): the next `want` revalidates the
    /// downloaded ones with their servers.
    func reset() {
        lock.withLock {
            for (source, state) in states {
                switch state {
                case .downloading, .decoding:
                    continue
                case .ready:
                    revalidate.insert(source)
                    states[source] = nil
                case .queued, .failed:
                    states[source] = nil
                }
            }
            pictures = pictures.filter { states[$0.key] != nil }
            rendered.removeAll()
        }
    }

    /// The picture rendered for `columns` × `rows` cells, if it is ready;
    /// otherwise rendering starts and `onChange` fires when it is done.
    func image(for source: MediaSource, columns: Int, rows: Int, renderer: TerminalImageRenderer, cellWidth: Int, cellHeight: Int) -> TerminalImage? {
        let key = RenderKey(source: source, columns: columns, rows: rows)
        let picture: RGBAPicture? = lock.withLock {
            if rendered[key] != nil || rendering.contains(key) { return nil }
            guard let picture = pictures[source] else { return nil }
            rendering.insert(key)
            return picture
        }
        if let picture {
            work.async { [self] in
                let image = renderer.render(picture, columns: columns, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight)
                lock.withLock {
                    rendering.remove(key)
                    if let image { rendered[key] = image }
                }
                onChange(false)
            }
        }
        return lock.withLock { rendered[key] }
    }

    /// With `lock` held: the pending sources that may start now.
    private func takeStartableLocked() -> [MediaSource] {
        var start: [MediaSource] = []
        while running < maximumDownloads, !pending.isEmpty {
            let source = pending.removeFirst()
            guard states[source] == .queued else { continue }
            states[source] = .downloading(fraction: nil)
            running += 1
            start.append(source)
        }
        return start
    }

    private func load(_ source: MediaSource) {
        switch source {
        case let .file(path):
            decode(source, path: path)
        case let .remote(url):
            guard let cache else {
                finish(source, .failed("no cache to download into"))
                return
            }
            let refresh = lock.withLock { revalidate.remove(source) != nil }
            Task.detached { [self] in
                // A picture is small: a server that trickles it is given up
                // on at the network deadline, as a feed is.
                for await event in cache.download(url, refresh: refresh, deadline: NetworkLimits.timeout) {
                    switch event {
                    case let .progress(progress):
                        lock.withLock { states[source] = .downloading(fraction: progress.fraction) }
                        onChange(false)
                    case let .finished(path, _):
                        onChange(true)
                        decode(source, path: path)
                        return
                    case let .failed(error):
                        // A revalidation that could not reach the server
                        // leaves the cached picture as good as it was.
                        if refresh, let path = cache.cachedFile(for: url) {
                            decode(source, path: path)
                        } else {
                            finish(source, .failed("download failed: \(error)"))
                        }
                        return
                    }
                }
                finish(source, .failed("download stopped"))
            }
        }
    }

    private func decode(_ source: MediaSource, path: String) {
        lock.withLock { states[source] = .decoding }
        onChange(false)
        work.async { [self] in
            do {
                let picture = try PictureDecoder.picture(path: path, maxWidth: Self.maximumSize.width, maxHeight: Self.maximumSize.height)
                lock.withLock { pictures[source] = picture }
                finish(source, .ready)
            } catch {
                finish(source, .failed("\(error)"))
            }
        }
    }

    /// Records the outcome, frees the slot and starts the next wanted one.
    private func finish(_ source: MediaSource, _ state: State) {
        let start: [MediaSource] = lock.withLock {
            states[source] = state
            running -= 1
            return takeStartableLocked()
        }
        onChange(false)
        for next in start { load(next) }
    }
}
