import Foundation
import Synchronization

/// Servers whose requests carry the user's login only on the wire: a
/// Subsonic server's `u`, `t` and `s` (or `p`) are added to a URL as libcurl
/// is handed it, never to the URL the cache keys its entry by, the index
/// keeps, or a message shows. A feed source registers its server's prefix
/// when it loads (`MediaServers`); every transfer of the process (the
/// cache's downloads, `HTTPGet`, live streams) asks here.
public enum RequestSigning {
    public typealias Signer = @Sendable (URL) -> URL

    private static let signers = Mutex<[(prefix: String, sign: Signer)]>([])

    /// URLs that start with `prefix` (scheme, host, port and path up to a
    /// slash) are signed by `sign`; a later registration of the same prefix
    /// replaces the earlier one.
    public static func register(prefix: String, _ sign: @escaping Signer) {
        signers.withLock { list in
            list.removeAll { $0.prefix == prefix }
            list.append((prefix, sign))
        }
    }

    /// The URL to send: signed when a registered prefix covers it, else itself.
    public static func signed(_ url: URL) -> URL {
        let text = url.absoluteString
        guard let sign = signers.withLock({ list in list.last { text.hasPrefix($0.prefix) }?.sign }) else { return url }
        return sign(url)
    }
}
