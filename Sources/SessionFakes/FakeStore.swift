import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaSession
import Synchronization

/// A cache whose downloads the test scripts: each URL is cached, fails, or
/// downloads in steps; nothing touches the network.
public final class FakeStore: MediaStore, Sendable {
    public enum Outcome: Sendable {
        case succeeds(path: String)
        case fails(CacheError)
        /// Half comes, then it waits for `release` (or a cancel).
        case waits(path: String)
    }

    private let outcomes: [URL: Outcome]
    /// Small documents (chapters files) by URL; any other is a 404.
    private let documents: [URL: [UInt8]]
    private let documentsFetched = Mutex<[URL]>([])
    private let cached = Mutex<[URL: String]>([:])
    private let cancelled = Mutex<[URL]>([])
    private let waiting = Mutex<[URL: AsyncStream<DownloadEvent>.Continuation]>([:])

    /// Lets a waiting download finish.
    public func release(_ url: URL) {
        guard case let .waits(path)? = outcomes[url], let continuation = waiting.withLock({ $0.removeValue(forKey: url) }) else { return }
        cached.withLock { $0[url] = path }
        continuation.yield(.finished(path: path, alreadyCached: false))
        continuation.finish()
    }

    public init(_ outcomes: [URL: Outcome], documents: [URL: [UInt8]] = [:]) {
        self.outcomes = outcomes
        self.documents = documents
    }

    /// The documents asked for, in order.
    public var fetchedDocuments: [URL] { documentsFetched.withLock { $0 } }

    public var cancellations: [URL] { cancelled.withLock { $0 } }

    public func cachedFile(for url: URL) -> String? { cached.withLock { $0[url] } }

    public func openReader(_ url: URL) async throws(CacheError) -> any ByteSource {
        switch outcomes[url] {
        case let .succeeds(path)?, let .waits(path)?: return FileBytes(path: path)
        case let .fails(error)?: throw error
        case nil: throw .http(status: 404, host: url.host ?? "")
        }
    }

    public func downloadWhole(_ url: URL) -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DownloadEvent.self)
        switch outcomes[url] {
        case let .succeeds(path)?:
            continuation.yield(.progress(DownloadProgress(phase: .downloading, received: 50, total: 100, bytesPerSecond: 0)))
            cached.withLock { $0[url] = path }
            continuation.yield(.finished(path: path, alreadyCached: false))
        case let .fails(error)?:
            continuation.yield(.failed(error))
        case .waits?:
            continuation.yield(.progress(DownloadProgress(phase: .downloading, received: 50, total: 100, bytesPerSecond: 0)))
            waiting.withLock { $0[url] = continuation }
            return stream
        case nil:
            continuation.yield(.failed(.http(status: 404, host: url.host ?? "")))
        }
        continuation.finish()
        return stream
    }

    public func fetchDocument(_ url: URL, maximumBytes: Int64) throws(TransferError) -> [UInt8] {
        documentsFetched.withLock { $0.append(url) }
        guard let document = documents[url] else { throw TransferError(kind: .http(status: 404), message: "HTTP 404 from \(url.host ?? "")") }
        guard document.count <= maximumBytes else { throw TransferError(kind: .tooLarge(limit: maximumBytes), message: "larger than \(maximumBytes) bytes") }
        return document
    }

    public func openLiveStream(_ url: URL) -> any LiveByteSource { EmptyLiveBytes(url: url) }

    public func cancel(_ url: URL) {
        cancelled.withLock { $0.append(url) }
        if let continuation = waiting.withLock({ $0.removeValue(forKey: url) }) {
            continuation.yield(.failed(.cancelled))
            continuation.finish()
        }
    }
}

/// A byte source over a file (what the fake engine is given; it reads nothing).
public final class FileBytes: ByteSource, @unchecked Sendable {
    public let name: String
    public var onWait: (@Sendable (Bool) -> Void)?
    public init(path: String) { name = path }
    public func size() throws -> Int64? { 0 }
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int { 0 }
    public func interrupt() {}
}

/// A live stream that ends at once (the fake store's downloads never say
/// `.liveStream`, so no session of a test asks for one).
public final class EmptyLiveBytes: LiveByteSource, @unchecked Sendable {
    public let name: String
    public var onWait: (@Sendable (Bool) -> Void)?
    public var onTitle: (@Sendable (String) -> Void)?
    public var onNotice: (@Sendable (String?) -> Void)?
    public var isLive: Bool { true }
    public init(url: URL) { name = url.absoluteString }
    public func size() throws -> Int64? { nil }
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int { 0 }
    public func interrupt() {}
}
