import Foundation

/// A web page as an item's input, the one way every front end takes it
/// (play, the background player, fetch): the kept resolution first, when
/// it can still serve; else yt-dlp, off Swift's cooperative pool, and what
/// it found kept (a live page's media has no end to keep).
public struct PageInputs: Sendable {
    /// What finds the media in a page (yt-dlp); nil: pages are off.
    public let resolver: (any PageResolver)?

    public init(resolver: (any PageResolver)?) {
        self.resolver = resolver
    }

    /// `page`'s kept resolution, unless it needs cookies (never kept) for a
    /// file not yet cached. Read off the pool (the cache's index).
    public func kept(_ page: URL, in store: any MediaStore) async -> ResolvedPage? {
        await Self.offPool {
            guard let kept = store.keptPage(for: page) else { return nil }
            if kept.lacksCookies, !kept.files.allSatisfy({ !$0.isManifest && store.cachedFile(for: $0.url) != nil }) { return nil }
            return kept
        }
    }

    /// `page` through yt-dlp, its resolution kept in `store`; `cancellation`
    /// ends yt-dlp from another thread (a stop).
    public func resolve(_ page: URL, keepingIn store: any MediaStore, cancellation: PageCancellation = PageCancellation()) async -> Result<ResolvedPage, PageError> {
        guard let resolver else { return .failure(.off) }
        return await Self.offPool {
            Result { () throws(PageError) in
                let resolved = try resolver.resolve(page, cancellation: cancellation)
                if !resolved.isLive { store.keep(resolved, for: page) }
                return resolved
            }
        }
    }

    /// Blocking work (yt-dlp, the cache's index, a manifest's check) on a
    /// thread of its own, never on Swift's cooperative pool.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = "mediaplay.page"
            thread.start()
        }
    }
}
