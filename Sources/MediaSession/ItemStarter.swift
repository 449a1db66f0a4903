import Foundation
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
        /// A remote item in a session without a cache.
        case noCache
        /// An item with no media at all.
        case textOnly
    }

    /// The input to play `item` from, once it can be opened.
    func input(for item: FeedItem, onDownload: @Sendable (Download) -> Void) async throws(Failure) -> MediaInput {
        switch item.source {
        case let .file(path)?:
            guard LocalFile.isReadable(path) else { throw .missing(path: path) }
            return .file(path)
        case let .remote(url)?:
            guard let store else { throw .noCache }
            if let path = store.cachedFile(for: url) { return .file(path) }
            // Audio and video play while they download (a 404 is a download
            // error, said once the server answered); a picture is shown
            // whole, so it downloads first.
            if item.kind != .image {
                do {
                    return .source(try await store.openReader(url))
                } catch .liveStream {
                    // No length: internet radio, played live, never kept.
                    return .source(store.openLiveStream(url))
                } catch {
                    throw .download(reason: "\(error)")
                }
            }
            onDownload(.began)
            defer { onDownload(.ended) }
            for await event in store.downloadWhole(url) {
                switch event {
                case let .progress(progress): onDownload(.progress(progress.fraction))
                case let .finished(path, _): return .file(path)
                case let .failed(error): throw .download(reason: "\(error)")
                }
            }
            throw .download(reason: "stopped")
        case nil:
            throw .textOnly
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
        if case let .remote(url)? = item.source { store?.cancel(url) }
    }

    /// Whether the item's media is at hand without a download.
    func isCached(_ item: FeedItem) -> Bool {
        switch item.source {
        case let .remote(url)?: return store?.cachedFile(for: url) != nil
        case .file?: return true
        case nil: return false
        }
    }
}
