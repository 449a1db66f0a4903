import Foundation
import MediaModel

/// Where the session's downloads come from: the cache, or a test's fake.
public protocol MediaStore: DocumentFetcher {
    /// The complete file of `url`, if it is cached.
    func cachedFile(for url: URL) -> String?
    /// A reader of `url`'s download (started or joined), once the server answered.
    func openReader(_ url: URL) async throws(CacheError) -> any ByteSource
    /// Downloads `url` whole (or joins its download), with progress.
    func downloadWhole(_ url: URL) -> AsyncStream<DownloadEvent>
    /// Stops the in-process download of `url` (the part downloaded stays).
    func cancel(_ url: URL)
    /// The reader of a live stream (`openReader` said `.liveStream`):
    /// internet radio, played live, never kept.
    func openLiveStream(_ url: URL) -> any LiveByteSource
    /// The clock its downloads and live streams wait on.
    var clock: any MediaClock { get }
    /// `openReader`, sending `headers` (a page's site asks for them) to
    /// the URL's own host.
    func openReader(_ url: URL, headers: [String: String]) async throws(CacheError) -> any ByteSource
    /// What the web page at `url` resolved to, when it was kept.
    func keptPage(for url: URL) -> ResolvedPage?
    /// Keeps a page's resolution (a second play asks yt-dlp nothing).
    func keep(_ page: ResolvedPage, for url: URL)
}

extension MediaStore {
    public var clock: any MediaClock { SystemClock.shared }
    public func openReader(_ url: URL, headers: [String: String]) async throws(CacheError) -> any ByteSource { try await openReader(url) }
    public func keptPage(for url: URL) -> ResolvedPage? { nil }
    public func keep(_ page: ResolvedPage, for url: URL) {}
}

/// A small remote document read whole into memory, never kept (a podcast's
/// chapters file): the cache's one-shot fetch, or a test's fake.
public protocol DocumentFetcher: Sendable {
    /// At most `maximumBytes`, within the one-shot fetch's deadline. It
    /// blocks: call it off Swift's cooperative pool.
    func fetchDocument(_ url: URL, maximumBytes: Int64) throws(TransferError) -> [UInt8]
}
