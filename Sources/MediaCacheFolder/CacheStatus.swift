import Foundation
import MediaModel

/// What the cache holds for a URL, as `list` shows it.
public enum EntryStatus: Sendable, Equatable {
    case notDownloaded
    /// A process (maybe another one) is downloading it now.
    case downloading(received: Int64, total: Int64?)
    /// Stopped part way; the next fetch resumes.
    case partial(received: Int64, total: Int64?)
    case cached(size: Int64)
    case failed(reason: String, received: Int64)

    public var availability: Availability {
        switch self {
        case .notDownloaded: return .notDownloaded
        case .downloading: return .downloading
        case .partial: return .partial
        case .cached: return .cached
        case .failed: return .failed
        }
    }
}

