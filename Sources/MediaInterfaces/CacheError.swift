/// Why a download or cache operation failed, worded for the person reading it.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an HTTP error (after retries, for 5xx).
    case http(status: Int, host: String)
    /// Connection, DNS, TLS, timeout or reset, after the retries ran out.
    case network(String)
    /// The file is larger than the size limit.
    case tooLarge(limit: Int64)
    /// More than the allowed redirects.
    case redirectLoop(host: String)
    /// The server sent a different number of bytes than it announced.
    case wrongLength(expected: Int64, received: Int64)
    /// The disk is full (or over quota); the partial download is kept.
    case diskFull(path: String)
    /// Another local I/O failure.
    case io(String)
    /// Not an http, https or file URL.
    case unsupported(String)
    /// A local file that does not exist or cannot be read.
    case missingFile(String)
    /// The caller cancelled.
    case cancelled
    /// A stream with no end (internet radio: no length): played live,
    /// never kept.
    case liveStream
    /// A web page (HTML), not media: yt-dlp may find the media in it.
    case webPage
    /// An XML or JSON document (its type), not media: an API's answer,
    /// often an error (a Subsonic server's come as HTTP 200). Never kept.
    case document(String)

    public var description: String {
        switch self {
        case let .http(status, host): return "HTTP \(status) from \(host)"
        case let .network(message): return message
        case let .tooLarge(limit): return "larger than the size limit of \(Self.sizeText(limit)) (raise it with --max-size)"
        case let .redirectLoop(host): return "too many redirects (more than 5) from \(host)"
        case let .wrongLength(expected, received): return "the server sent \(received) bytes but announced \(expected)"
        case let .diskFull(path): return "no space left on the disk holding \(path) (free some space; the partial download is kept and resumes)"
        case let .io(message): return message
        case let .unsupported(message): return message
        case let .missingFile(path): return "no readable file at \(path)"
        case .cancelled: return "cancelled"
        case .liveStream: return "a live stream (no length): it is played live, never downloaded"
        case .webPage: return "a web page, not a media file"
        case let .document(type): return "the server answered with a document (\(type)), not a media file"
        }
    }

    static func sizeText(_ bytes: Int64) -> String {
        if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return "\(bytes) bytes"
    }
}
