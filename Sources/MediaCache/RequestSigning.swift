import Foundation
import Synchronization

/// Servers whose requests carry the user's login only on the wire: a
/// Subsonic server's `u`, `t` and `s` (or `p`) are added to a URL as libcurl
/// is handed it, never to the URL the cache keys its entry by, the index
/// keeps, or a message shows. Only the exact URLs the server's item maker
/// made (`allow`: its songs' media and pictures) are signed: a URL a feed,
/// a page or any other remote party names is sent as it is, even when it
/// points into the server's API (a confused deputy otherwise). Every
/// transfer of the process (the cache's downloads, `HTTPGet`, live
/// streams) asks here.
public enum RequestSigning {
    public typealias Signer = @Sendable (URL) -> URL

    private struct State {
        var signers: [(prefix: String, sign: Signer)] = []
        /// The URLs (`absoluteString`) the item makers made.
        var made: Set<String> = []
        /// Allowed, not yet in `made`: a list allows a server's 10,000
        /// URLs and asks about none, so they are hashed at the first question.
        var pending: [[URL]] = []

        /// `made`, with every URL allowed so far.
        mutating func settled() -> Set<String> {
            if !pending.isEmpty {
                made.reserveCapacity(made.count + pending.reduce(0) { $0 + $1.count })
                for urls in pending { for url in urls { made.insert(url.absoluteString) } }
                pending.removeAll()
            }
            return made
        }
    }

    private static let state = Mutex(State())

    /// URLs that start with `prefix` (scheme, host, port and path up to a
    /// slash) and were made by the item maker (`allow`) are signed by
    /// `sign`; a later registration of the same prefix replaces the
    /// earlier one.
    public static func register(prefix: String, _ sign: @escaping Signer) {
        state.withLock { state in
            state.signers.removeAll { $0.prefix == prefix }
            state.signers.append((prefix, sign))
        }
    }

    /// The URLs a server's item maker made (its songs' media and pictures):
    /// the only ones signed, where a registered prefix covers them, and
    /// redirected only within the server (`followsRedirects` false): a
    /// server's URLs stay on the server it answered from.
    public static func allow(_ urls: [URL]) {
        guard !urls.isEmpty else { return }
        state.withLock { $0.pending.append(urls) }
    }

    /// Whether a transfer of `url` may follow redirects anywhere: not for a
    /// URL a server's item maker made (only within its own server).
    public static func followsRedirects(_ url: URL) -> Bool {
        let text = url.absoluteString
        return !state.withLock { $0.settled().contains(text) }
    }

    /// The URL to send: signed when the item maker made it and a registered
    /// prefix covers it, else itself.
    public static func signed(_ url: URL) -> URL {
        let text = url.absoluteString
        let sign = state.withLock { state -> Signer? in
            guard state.settled().contains(text) else { return nil }
            return state.signers.last { text.hasPrefix($0.prefix) }?.sign
        }
        return sign.map { $0(url) } ?? url
    }
}
