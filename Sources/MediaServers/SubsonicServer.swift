import CLinux
import Foundation
import Glibc
import MediaCache
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaplayCommon
import MediaTerminal

/// A Subsonic server a feed names: `subsonic+https://USER[:PASSWORD]@HOST[:PORT][/PATH]`
/// (or `subsonic+http://` on a LAN), its login from the URL or from
/// config.toml's `[feeds.NAME]`. The password lives here and in the
/// signer `RequestSigning` holds; every URL made from it (`identity`, the
/// items' media) carries none.
public struct SubsonicServer: Sendable {
    /// `http://HOST:PORT/PATH`, no login, no trailing slash.
    public let base: String
    public let user: String
    let password: String
    /// `subsonic+http://USER@HOST:PORT/PATH`: the feed's name between runs
    /// (its kept library, its items seen), without the password.
    public let identity: String
    /// The host, as messages name the server.
    public let host: String

    public static let scheme = "subsonic+"

    public static func isLocation(_ location: String) -> Bool {
        let lower = location.lowercased()
        return lower.hasPrefix("subsonic+http://") || lower.hasPrefix("subsonic+https://")
    }

    /// Reads the location; the login comes from it, else from `login`
    /// (a named feed's table). Throws a one-line error naming the fix.
    /// `needsPassword` false: only the identity is wanted (no command runs).
    public init(location: String, login: ServerLogin?, needsPassword: Bool = true) throws(CLIError) {
        let shown = location.redactingUserinfo
        let inner = String(location.dropFirst(Self.scheme.count))
        guard let components = URLComponents(string: inner), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty
        else {
            throw CLIError("\"\(shown)\" is not a Subsonic server's URL (subsonic+https://USER@HOST[:PORT][/PATH])", exitCode: .usage)
        }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? login?.user
        guard let user, !user.isEmpty else {
            throw CLIError("no user for the Subsonic server \(host): put it in the URL (subsonic+https://USER@\(host)) or set user in [feeds.NAME] of config.toml", exitCode: .usage)
        }
        var password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding } ?? login?.password
        if !needsPassword { password = password ?? "" }
        if password == nil, let command = login?.passwordCommand { password = try PasswordCommand.firstLine(of: command, section: "feeds") }
        guard let password else {
            throw CLIError(
                "no password for user \(user) on the Subsonic server \(host): set password or password-command in [feeds.NAME] of config.toml (docs/CONFIG.md)",
                exitCode: .config
            )
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let port = components.port.map { ":\($0)" } ?? ""
        let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        base = "\(scheme)://\(hostText)\(port)\(path)"
        self.user = user
        self.password = password
        self.host = host
        let encodedUser = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        identity = "subsonic+\(scheme)://\(encodedUser)@\(hostText)\(port)\(path)"
    }

    /// Where every call of the API starts (`…/rest/`): the prefix signed.
    public var restPrefix: String { base + "/rest/" }

    /// `…/rest/METHOD.view?NAME=VALUE…`, unsigned.
    public func url(_ method: String, _ parameters: [(String, String)] = []) -> URL {
        var text = restPrefix + method + ".view"
        var separator = "?"
        for (name, value) in parameters {
            text += separator + name + "=" + Self.encode(value)
            separator = "&"
        }
        // Built from our own parts, each encoded: it always parses.
        return URL(string: text)!
    }

    /// RFC 3986's unreserved characters as they are, every other byte of
    /// the UTF-8 as %XX (by bytes: Foundation's CharacterSet took a third of
    /// a 10,000-song list).
    static func encode(_ value: String) -> String {
        func unreserved(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
        }
        if value.utf8.allSatisfy(unreserved) { return value }
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count * 3)
        for byte in value.utf8 {
            if unreserved(byte) {
                bytes.append(byte)
            } else {
                bytes += [0x25, digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// How a server takes the password: a salted token (API 1.13 and later),
/// else the password itself, hex-encoded (`p=enc:…`, as Supysonic 0.7 and
/// other servers of API 1.12 and older want it).
public enum SubsonicAuth: String, Sendable {
    case token
    case hex
}

/// Talks to one Subsonic server: each call signed on the wire (its own
/// calls here, its items' media through `RequestSigning`), read as JSON,
/// its failures one line each.
public final class SubsonicClient: Sendable {
    public let server: SubsonicServer
    public let auth: SubsonicAuth
    /// The API version sent as `v` (the server's own, at most ours).
    public let version: String
    /// Seconds one call may take in all.
    let timeout: Int

    /// The version mediaplay speaks with a server that takes tokens.
    static let tokenVersion = "1.13.0"
    /// Answers larger than this are not a library page.
    static let maximumAnswer: Int64 = 64 << 20

    public init(server: SubsonicServer, auth: SubsonicAuth, version: String, timeout: Int = SubsonicClient.defaultTimeout) {
        self.server = server
        self.auth = auth
        self.version = version
        self.timeout = timeout
        register()
    }

    /// A server that never answers is given up within this ([network]
    /// timeout, if shorter).
    public static var defaultTimeout: Int { min(NetworkLimits.timeout, 10) }

    /// Finds how the server takes the password (one or two `ping`s) and
    /// checks the login: a wrong password is exit 77, a server down 69.
    /// Within `deadline` (the load's), however many pings it takes.
    static func connect(_ server: SubsonicServer, within deadline: LoadDeadline) throws(CLIError) -> SubsonicClient {
        let timeout = defaultTimeout
        let tokenClient = SubsonicClient(server: server, auth: .token, version: tokenVersion, timeout: timeout)
        let answer = try tokenClient.send(tokenClient.server.url("ping"), within: deadline)
        if answer.ok { return tokenClient }
        let serverVersion = answer.version ?? "1.1.0"
        // 41: no token for this user (LDAP); 10, 30, a version under 1.13: no tokens at all.
        let tokensRefused = [10, 30, 41].contains(answer.errorCode ?? 0) || Self.isOlder(serverVersion, than: tokenVersion)
        guard tokensRefused else { throw tokenClient.failure(answer, doing: "ping") }
        let hexClient = SubsonicClient(server: server, auth: .hex, version: isOlder(serverVersion, than: tokenVersion) ? serverVersion : tokenVersion, timeout: timeout)
        let second = try hexClient.send(hexClient.server.url("ping"), within: deadline)
        guard second.ok else { throw hexClient.failure(second, doing: "ping") }
        return hexClient
    }

    /// The methods whose URLs the item maker makes (`SubsonicLibrary.loaded`):
    /// the only ones `RequestSigning` signs for the other transfers.
    static let mediaMethods: Set<String> = ["stream.view", "download.view", "getCoverArt.view"]

    /// `RequestSigning` adds the login to the media URLs the item maker
    /// made; the client's own calls are signed by `send`.
    private func register() {
        RequestSigning.register(prefix: server.restPrefix) { [self] url in
            Self.mediaMethods.contains(url.lastPathComponent) ? signed(url) : url
        }
    }

    /// `url` with the login (`u`, `t` and `s`, or `p=enc:`), the version and the client.
    func signed(_ url: URL) -> URL {
        var text = url.absoluteString
        text += text.contains("?") ? "&" : "?"
        text += "u=" + SubsonicServer.encode(server.user)
        switch auth {
        case .token:
            let salt = Self.salt()
            text += "&t=" + MD5.hex(of: server.password + salt) + "&s=" + salt
        case .hex:
            text += "&p=enc:" + Array(server.password.utf8).map { String(format: "%02x", $0) }.joined()
        }
        text += "&v=" + SubsonicServer.encode(version) + "&c=mediaplay"
        return URL(string: text) ?? url
    }

    private static func salt() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<12).map { _ in String(format: "%x", Int(generator.next() % 16)) }.joined()
    }

    static func isOlder(_ version: String, than other: String) -> Bool {
        func parts(_ text: String) -> [Int] { text.split(separator: ".").map { whole(String($0), in: 0...100_000) ?? 0 } }
        let a = parts(version), b = parts(other)
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0, y = index < b.count ? b[index] : 0
            if x != y { return x < y }
        }
        return false
    }

    /// The server's answer to one call.
    struct Answer {
        var ok: Bool
        var version: String?
        var errorCode: Int?
        var errorMessage: String?
        /// `subsonic-response`'s members.
        var body: JSONValue
    }

    /// Calls `method` and returns its answer's body; a failure the server
    /// states is a one-line error.
    /// `deadline`: the load's, the time left given to this call.
    func call(_ method: String, _ parameters: [(String, String)] = [], within deadline: LoadDeadline? = nil) throws(CLIError) -> JSONValue {
        let answer = try send(server.url(method, parameters), within: deadline)
        guard answer.ok else { throw failure(answer, doing: method) }
        return answer.body
    }

    /// Calls `method` for what it does, not what it says (scrobble, star).
    public func perform(_ method: String, _ parameters: [(String, String)]) throws(CLIError) {
        _ = try call(method, parameters)
    }

    func send(_ url: URL, within deadline: LoadDeadline? = nil) throws(CLIError) -> Answer {
        let host = server.host
        let response: HTTPResponse
        let timeout = try deadline.map { deadline throws(CLIError) in min(self.timeout, try deadline.left(for: host)) } ?? self.timeout
        do {
            let text = url.absoluteString
            let asked = URL(string: text + (text.contains("?") ? "&" : "?") + "f=json") ?? url
            // A redirect would take the login elsewhere: none followed.
            response = try HTTPGet.fetch(signed(asked), maximumBytes: Self.maximumAnswer, timeout: timeout, followsRedirects: false)
        } catch {
            switch error.kind {
            case let .http(status) where status == 404:
                throw CLIError("the Subsonic server \(host) has no \(url.lastPathComponent) (HTTP 404: check the URL's path, or its API is too old)", exitCode: .unavailable)
            case let .http(status) where status == 401 || status == 403:
                throw CLIError("the Subsonic server \(host) refused user \(server.user) (HTTP \(status))", exitCode: .noPermission)
            case .tooLarge:
                throw CLIError("the Subsonic server \(host) sent more than \(Self.maximumAnswer >> 20) MiB for one page; is it really a Subsonic server?", exitCode: .unavailable)
            default:
                throw CLIError("cannot reach the Subsonic server \(host): \(error.message) (is it running? check the URL)", exitCode: .unavailable)
            }
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse(response.body, maximumArrayLength: 1_000_000).value
        } catch {
            throw CLIError("\(host) did not answer as a Subsonic server (not JSON: \(error.message)); check the URL", exitCode: .unavailable)
        }
        guard let body = root["subsonic-response"]?.value, case .object = body else {
            throw CLIError("\(host) did not answer as a Subsonic server (no subsonic-response); check the URL", exitCode: .unavailable)
        }
        let status = Self.string(body["status"])
        let version = Self.string(body["version"])
        let error = body["error"]?.value
        return Answer(
            ok: status == "ok", version: version,
            errorCode: error.flatMap { Self.int($0["code"]) }, errorMessage: error.flatMap { Self.string($0["message"]) }, body: body
        )
    }

    /// A failed answer in words: the login refused is exit 77, an API the
    /// server lacks is said as such.
    func failure(_ answer: Answer, doing method: String) -> CLIError {
        let host = server.host
        let said = answer.errorMessage.map { ServerText.line($0) } ?? "no reason given"
        switch answer.errorCode {
        case 40:
            return CLIError("the server \(host) refused user \(server.user): wrong password", exitCode: .noPermission)
        case 41:
            return CLIError("the server \(host) refused user \(server.user): it takes no token for this user (\(said))", exitCode: .noPermission)
        case 50:
            return CLIError("the server \(host) does not let user \(server.user) do \(method) (\(said))", exitCode: .noPermission)
        case 20:
            return CLIError("the server \(host) speaks a newer Subsonic API than mediaplay (\(answer.version ?? "?")): \(said)", exitCode: .unavailable)
        case 30:
            return CLIError("the server \(host) speaks Subsonic API \(answer.version ?? "?"), too old for \(method) (\(said))", exitCode: .unavailable)
        case 70:
            return CLIError("the server \(host) does not have it (\(method): \(said))", exitCode: .noInput)
        default:
            return CLIError("the Subsonic server \(host) failed \(method): \(said) (error \(answer.errorCode.map(String.init) ?? "?"))", exitCode: .unavailable)
        }
    }

    static func string(_ value: JSONValue.Located?) -> String? {
        switch value?.value {
        case let .string(text)?: return text
        case let .number(text)?: return text
        default: return nil
        }
    }

    static func int(_ value: JSONValue.Located?) -> Int? {
        switch value?.value {
        case let .number(text)?, let .string(text)?: return whole(text, in: Int(Int32.min)...Int(Int32.max))
        default: return nil
        }
    }

    static func double(_ value: JSONValue.Located?) -> Double? {
        switch value?.value {
        case let .number(text)?, let .string(text)?:
            guard let number = Double(text), number.isFinite, number >= 0, number < 1e9 else { return nil }
            return number
        default: return nil
        }
    }
}

/// A whole number a server sent, when it is one and within `range`
/// (`Int(text)` gives nil, never a trap, past Int's range).
func whole(_ text: some StringProtocol, in range: ClosedRange<Int>) -> Int? {
    var bytes = Substring(text).utf8[...]
    while bytes.first == 0x20 || bytes.first == 0x09 { bytes = bytes.dropFirst() }
    while bytes.last == 0x20 || bytes.last == 0x09 { bytes = bytes.dropLast() }
    guard let number = Int(Substring(bytes)), range.contains(number) else { return nil }
    return number
}
