import Foundation
import MediaInterfaces

/// The cache is the session's store (MediaInterfaces' `MediaStore`).
extension MediaCache: MediaStore {
    public func openReader(_ url: URL) async throws(CacheError) -> any ByteSource {
        try await openWhenAnswered(url)
    }

    public func openReader(_ url: URL, headers: [String: String]) async throws(CacheError) -> any ByteSource {
        try await openWhenAnswered(url, headers: headers)
    }

    public func keptPage(for url: URL) -> ResolvedPage? { folder.keptPage(for: url) }

    public func keep(_ page: ResolvedPage, for url: URL) { folder.keep(page, for: url) }

    public func downloadWhole(_ url: URL) -> AsyncStream<DownloadEvent> { download(url) }

    public func fetchDocument(_ url: URL, maximumBytes: Int64) throws(TransferError) -> [UInt8] {
        try HTTPGet.fetch(url, maximumBytes: maximumBytes).body
    }

    public func openLiveStream(_ url: URL) -> any LiveByteSource { LiveStream(url: url, clock: clock) }
}

/// The same one-shot fetch where no cache is open (a session of local
/// media reading a podcast's chapters file).
public struct HTTPDocuments: DocumentFetcher {
    public init() {}

    public func fetchDocument(_ url: URL, maximumBytes: Int64) throws(TransferError) -> [UInt8] {
        try HTTPGet.fetch(url, maximumBytes: maximumBytes).body
    }
}

