import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import MediaModel

/// What a web page holds for a player, as yt-dlp read it: the media to play
/// (one stream, or a manifest libavformat plays) and what it says about
/// them. Kept in the cache's index, so a page is resolved once; its URLs
/// may expire, and then it is resolved again.
public struct ResolvedPage: Sendable, Equatable, Codable {
    /// The page's title, made safe for a terminal (nil: it gave none).
    public var title: String?
    public var duration: Double?
    public var thumbnail: URL?
    public var chapters: [Chapter]
    public var subtitles: [Subtitle]
    /// What plays: one stream (a file, or an HLS or DASH manifest with every
    /// track in it), or the pictures when the sound comes apart.
    public var media: ResolvedMedia
    /// The sound as a file of its own (a site's best video and best audio
    /// apart), played with `media` in sync as one item.
    public var audio: ResolvedMedia?
    /// A live stream: played, never downloaded.
    public var isLive: Bool

    /// Every file it plays (the pictures', then the sound's when apart).
    public var files: [ResolvedMedia] { [media] + (audio.map { [$0] } ?? []) }

    /// Kept without the cookies its media needs (they are never written
    /// down): to play, the page is resolved again.
    public var lacksCookies: Bool { files.contains { $0.lacksCookies } }

    public struct Subtitle: Sendable, Equatable, Codable {
        public var url: URL
        public var language: String?

        public init(url: URL, language: String?) {
            self.url = url
            self.language = language
        }
    }

    public init(
        title: String?, duration: Double? = nil, thumbnail: URL? = nil, chapters: [Chapter] = [], subtitles: [Subtitle] = [],
        media: ResolvedMedia, audio: ResolvedMedia? = nil, isLive: Bool = false
    ) {
        self.audio = audio
        self.title = title
        self.duration = duration
        self.thumbnail = thumbnail
        self.chapters = chapters
        self.subtitles = subtitles
        self.media = media
        self.isLive = isLive
    }
}

/// One stream a page resolved to.
public struct ResolvedMedia: Sendable, Equatable, Codable {
    /// Always http or https (`PageRules.check`).
    public var url: URL
    /// The headers the page's site asks for (User-Agent, Referer, cookies),
    /// sent to the stream's own host only.
    public var headers: [String: String]
    /// An HLS or DASH manifest: libavformat plays it (segments over
    /// http(s) only), never the cache.
    public var isManifest: Bool

    /// Read back from the cache's index, where its Cookie header was left
    /// out: the cookies must come from yt-dlp again.
    public private(set) var lacksCookies = false

    public init(url: URL, headers: [String: String] = [:], isManifest: Bool = false) {
        self.url = url
        self.headers = headers
        self.isManifest = isManifest
    }

    private enum CodingKeys: String, CodingKey {
        case url, headers, isManifest, hadCookies
    }

    /// A Cookie header is never written (a session's cookies in plain text
    /// in the cache's index); that there was one is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(headers.filter { $0.key.lowercased() != "cookie" }, forKey: .headers)
        try container.encode(isManifest, forKey: .isManifest)
        if lacksCookies || headers.keys.contains(where: { $0.lowercased() == "cookie" }) { try container.encode(true, forKey: .hadCookies) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(URL.self, forKey: .url)
        // (An index written before kept the header: it is dropped here too.)
        let stored = try container.decode([String: String].self, forKey: .headers)
        headers = stored.filter { $0.key.lowercased() != "cookie" }
        isManifest = try container.decode(Bool.self, forKey: .isManifest)
        lacksCookies = try container.decodeIfPresent(Bool.self, forKey: .hadCookies) ?? false || headers.count != stored.count
    }

    /// The stream the engine reads a manifest from.
    public var stream: RemoteStream { RemoteStream(url: url, headers: headers) }
}

/// An HLS or DASH stream libavformat plays from its manifest's URL.
public struct RemoteStream: Sendable, Equatable {
    public var url: URL
    public var headers: [String: String]

    public init(url: URL, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }

    /// An adaptive stream by its name: a DASH manifest (.mpd) or an HLS
    /// playlist (.m3u8), over http(s).
    public static func isManifest(_ url: URL) -> Bool {
        guard PageRules.isWeb(url) else { return false }
        return ["mpd", "m3u8"].contains(url.pathExtension.lowercased())
    }
}

/// Why a page gave nothing to play, in one line.
public enum PageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No yt-dlp to ask (exit 69).
    case noResolver
    /// Pages are turned off (`--no-ytdl`, `ytdl = false`).
    case off
    /// yt-dlp failed or found nothing, in its words.
    case failed(String)
    /// It named something mediaplay refuses (a local file, another scheme).
    case refused(String)

    public static let noResolverText = "this is a web page; install yt-dlp to play it (apt install yt-dlp, or pip install yt-dlp)"

    public var description: String {
        switch self {
        case .noResolver: return Self.noResolverText
        case .off: return "this is a web page, not a media file, and web pages are off here (--no-ytdl, or [playback] ytdl = false)"
        case let .failed(message): return message
        case let .refused(message): return message
        }
    }
}

/// Turns a web page into what plays (yt-dlp, or a test's stand-in). It
/// blocks (a child process): call it off Swift's cooperative pool.
public protocol PageResolver: Sendable {
    /// `cancellation` ends the work from another thread (a stop).
    func resolve(_ page: URL, cancellation: PageCancellation) throws(PageError) -> ResolvedPage
}

extension PageResolver {
    public func resolve(_ page: URL) throws(PageError) -> ResolvedPage {
        try resolve(page, cancellation: PageCancellation())
    }
}

/// Ends a resolution under way from another thread: the resolver's child
/// process group is killed, and a resolution not yet begun never begins.
public final class PageCancellation: Sendable {
    private struct State { var cancelled = false; var group: pid_t? }
    private let state = Mutex(State())

    public init() {}

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    public func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let group = state.group { kill(-group, SIGKILL) }
        }
    }

    /// The resolver's process group, killed by a cancel until `finished`.
    public func started(group: pid_t) {
        state.withLock { state in
            state.group = group
            if state.cancelled { kill(-group, SIGKILL) }
        }
    }

    public func finished() {
        state.withLock { $0.group = nil }
    }
}

/// The one rule for what a page may name: http or https, never a local file
/// or another scheme.
public enum PageRules {
    public static func isWeb(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else { return false }
        return true
    }

    /// `url` when it is http(s); else the one line that refuses it.
    public static func check(_ text: String, page: URL) throws(PageError) -> URL {
        guard let url = URL(string: text), isWeb(url) else {
            let shown = String(text.redactingUserinfo.prefix(200))
            throw .refused("the page \(page.absoluteString.redactingUserinfo) names \(shown), which is not an http or https URL; mediaplay plays nothing local or of another kind from a page")
        }
        return url
    }
}
