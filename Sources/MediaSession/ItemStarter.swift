import Foundation
import Synchronization
import MediaFeed
import MediaInterfaces
import MediaModel

/// Where an item's bytes come from when it starts: a local file as it is; a
/// remote audio or video item not yet cached, read while it downloads (or
/// joins the download under way); anything else remote (a picture) through
/// the cache, downloaded whole first. It keeps no state of its own: how a
/// download goes and why a start failed go back to the session, which keeps
/// and announces them. A stop cancels a download with `cancel`.
struct ItemStarter: Sendable {
    let store: (any MediaStore)?
    /// Where small documents (a chapters file) come from when no store is open.
    var documents: (any DocumentFetcher)? = nil
    /// Web pages as inputs (yt-dlp, the kept resolutions); no resolver: pages do not play.
    var pages = PageInputs(resolver: nil)
    /// The files each page's media comes from, once known: a stop cancels
    /// their downloads under the session's lock, where nothing is read.
    let pageFiles = PageFiles()
    /// The pages yt-dlp is reading now: a stop ends that at once.
    let resolutions = PageResolutions()

    /// What a whole-file download does while the item starts.
    enum Download: Sendable {
        case began
        /// The fraction received, when the size is known.
        case progress(Double?)
        case ended
    }

    enum Failure: Error {
        /// A local file that is gone or cannot be read.
        case missing(path: String)
        /// The server or the network failed, in the cache's words.
        case download(reason: String)
        /// The server answered with a document (an API's error) where the
        /// media was asked for: its reason is asked of the server.
        case document(url: URL, reason: String)
        /// The server refused the user (its answer to the document above).
        case refused(String)
        /// A remote item in a session without a cache.
        case noCache
        /// An item with no media at all.
        case textOnly
        /// A web page that gave nothing to play (or no yt-dlp to ask).
        case page(PageError)
    }

    /// Where an item's bytes come from, and the web page it came through.
    struct Started: Sendable {
        var input: MediaInput
        /// What yt-dlp made of the item's page (its title, chapters, subtitles).
        var page: ResolvedPage?
    }

    /// The input to play `item` from, once it can be opened.
    func input(for item: FeedItem, onDownload: @Sendable (Download) -> Void) async throws(Failure) -> Started {
        switch item.source {
        case let .file(path)?:
            guard LocalFile.isReadable(path) else { throw .missing(path: path) }
            return Started(input: .file(path))
        case let .remote(url)?:
            guard let store else { throw .noCache }
            if let path = store.cachedFile(for: url) { return Started(input: .file(path)) }
            // An adaptive stream plays from its manifest (never cached).
            if item.kind != .image, RemoteStream.isManifest(url) { return Started(input: .stream(RemoteStream(url: url))) }
            // Audio and video play while they download (a 404 is a download
            // error, said once the server answered); a picture is shown
            // whole, so it downloads first.
            if item.kind != .image {
                // A page resolved before: its media, yt-dlp not asked again
                // unless the media's address no longer answers (they expire)
                // or it needs cookies (never kept) for a file not yet cached.
                if let kept = await pages.kept(url, in: store), await Self.answers(kept, store: store), let input = try? await open(kept, from: store, for: url) {
                    return Started(input: input, page: kept)
                }
                do {
                    return Started(input: .source(try await store.openReader(url)))
                } catch .liveStream {
                    // No length: internet radio, played live, never kept.
                    return Started(input: .source(store.openLiveStream(url)))
                } catch .webPage {
                    return try await resolve(url, store: store)
                } catch let .document(type) {
                    throw .document(url: url, reason: "\(CacheError.document(type))")
                } catch {
                    throw .download(reason: "\(error)")
                }
            }
            onDownload(.began)
            defer { onDownload(.ended) }
            for await event in store.downloadWhole(url) {
                switch event {
                case let .progress(progress): onDownload(.progress(progress.fraction))
                case let .finished(path, _): return Started(input: .file(path))
                case let .failed(.document(type)): throw .document(url: url, reason: "\(CacheError.document(type))")
                case let .failed(error): throw .download(reason: "\(error)")
                }
            }
            throw .download(reason: "stopped")
        case nil:
            throw .textOnly
        }
    }

    /// A web page through yt-dlp (off Swift's pool: it is a child process
    /// that takes seconds), its resolution kept, its media opened.
    private func resolve(_ url: URL, store: any MediaStore) async throws(Failure) -> Started {
        let cancellation = resolutions.begin(url)
        defer { resolutions.end(url, cancellation) }
        let result = await pages.resolve(url, keepingIn: store, cancellation: cancellation)
        let page: ResolvedPage
        do { page = try result.get() } catch { throw .page(error) }
        let input: MediaInput
        do { input = try await open(page, from: store, for: url) } catch { throw .download(reason: "\(error)") }
        return Started(input: input, page: page)
    }

    /// Whether a kept page's manifest still answers (libavformat, which
    /// plays it, fails later than a start can resolve the page again); a
    /// page of files or a live one needs no asking here.
    private static func answers(_ page: ResolvedPage, store: any MediaStore) async -> Bool {
        guard page.media.isManifest, !page.isLive else { return true }
        let url = page.media.url
        return await PageInputs.offPool { (try? store.fetchDocument(url, maximumBytes: 16 << 20)) != nil }
    }

    /// The input of a page's media: a manifest as a stream, a live stream
    /// live, a file through the cache (downloaded once, played meanwhile);
    /// the sound apart beside the pictures.
    private func open(_ page: ResolvedPage, from store: any MediaStore, for url: URL) async throws(CacheError) -> MediaInput {
        pageFiles.set(page.files.map(\.url), for: url)
        let media = page.media
        if media.isManifest { return .stream(media.stream) }
        if page.isLive { return .source(store.openLiveStream(media.url)) }
        let pictures = try await openFile(media, from: store)
        guard let audio = page.audio else { return pictures }
        return .separate(video: pictures, audio: try await openFile(audio, from: store))
    }

    private func openFile(_ media: ResolvedMedia, from store: any MediaStore) async throws(CacheError) -> MediaInput {
        if let path = store.cachedFile(for: media.url) { return .file(path) }
        do {
            return .source(try await store.openReader(media.url, headers: media.headers))
        } catch .liveStream {
            return .source(store.openLiveStream(media.url))
        }
    }

    /// The subtitle files the feed names for `item`, at hand: a local file
    /// as it is, a remote one from the cache, downloaded whole first (once:
    /// it stays cached like media). One that cannot be had is left out.
    func subtitleFiles(for item: FeedItem) async -> [SidecarSubtitles.File] {
        var files: [SidecarSubtitles.File] = []
        for link in item.subtitles {
            switch link.source {
            case let .file(path):
                if LocalFile.isReadable(path) { files.append(SidecarSubtitles.File(path: path, language: link.language ?? SidecarSubtitles.language(of: path))) }
            case let .remote(url):
                guard let store else { continue }
                var path = store.cachedFile(for: url)
                if path == nil {
                    for await event in store.downloadWhole(url) {
                        if case let .finished(done, _) = event { path = done }
                    }
                }
                if let path { files.append(SidecarSubtitles.File(path: path, language: link.language ?? SidecarSubtitles.language(of: url.path))) }
            }
        }
        return files
    }

    /// Stops the in-process download of the item's media (the part
    /// downloaded stays for the next start).
    func cancel(_ item: FeedItem) {
        guard case let .remote(url)? = item.source else { return }
        resolutions.cancel(url)
        store?.cancel(url)
        for file in pageFiles.files(for: url) { store?.cancel(file) }
    }

    /// Whether the item's media is at hand without a download.
    func isCached(_ item: FeedItem) -> Bool {
        switch item.source {
        case let .remote(url)?:
            if store?.cachedFile(for: url) != nil { return true }
            return store?.keptPage(for: url).map { $0.files.allSatisfy { store?.cachedFile(for: $0.url) != nil } } ?? false
        case .file?: return true
        case nil: return false
        }
    }
}

/// The files each web page's media comes from, as this process learnt them.
final class PageFiles: Sendable {
    private let files = Mutex<[URL: [URL]]>([:])

    func set(_ media: [URL], for page: URL) {
        files.withLock { $0[page] = media }
    }

    func files(for page: URL) -> [URL] {
        files.withLock { $0[page] ?? [] }
    }
}

/// The resolutions under way, by page: a stop cancels its page's.
final class PageResolutions: Sendable {
    private let running = Mutex<[URL: [PageCancellation]]>([:])

    func begin(_ page: URL) -> PageCancellation {
        let cancellation = PageCancellation()
        running.withLock { $0[page, default: []].append(cancellation) }
        return cancellation
    }

    func end(_ page: URL, _ cancellation: PageCancellation) {
        running.withLock { running in
            running[page]?.removeAll { $0 === cancellation }
            if running[page]?.isEmpty == true { running[page] = nil }
        }
    }

    func cancel(_ page: URL) {
        for cancellation in running.withLock({ $0[page] ?? [] }) { cancellation.cancel() }
    }
}
