/// Whether an item's media is at hand, as `list` and browse show it (what
/// plays is `ItemState`). Decided in one place: `FeedItem.availability`.
public enum Availability: String, Codable, Sendable {
    /// A remote item not in the cache yet.
    case notDownloaded = "not-downloaded"
    /// Some process is downloading it now.
    case downloading
    /// A download stopped part way; the next one resumes.
    case partial
    /// Complete and verified in the cache.
    case cached
    /// The last download failed; `detail` says why.
    case failed
    /// A local file, used in place.
    case local
    /// A local file that does not exist (or cannot be read).
    case missing
    /// A record that cannot be used; `detail` says why.
    case invalid
    /// Words only, no media (a facts-feed row without an image).
    case textOnly = "text-only"
}
