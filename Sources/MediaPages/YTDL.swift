import CLinux
import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaTerminal
#if canImport(Glibc)
import Glibc
#endif

/// A web page resolved as mpv's ytdl_hook does: yt-dlp run once with
/// `-J --flat-playlist` and the format wanted, its JSON read into a
/// `ResolvedPage`. It runs as a child process; `resolve` blocks its caller
/// (never Swift's cooperative pool) until yt-dlp answers or `timeout` ends it.
public struct YTDL: PageResolver {
    /// The program: a path, or a name looked up in PATH.
    public var program: String
    /// yt-dlp's format selection (`bestvideo+bestaudio/best`).
    public var format: String
    /// Seconds yt-dlp may take before it is ended.
    public var timeout: Double
    /// `[network] timeout`: yt-dlp's wait on one connection (`--socket-timeout`).
    public var socketTimeout: Int?
    /// Between SIGTERM and SIGKILL, and after SIGKILL at most.
    static let grace: DispatchTimeInterval = .seconds(2)

    /// mpv's choice: the best video and audio, else the best single file.
    public static let videoFormat = "bestvideo+bestaudio/best"
    /// When no picture will show: the audio alone, where the site has it.
    public static let audioFormat = "bestaudio/best"
    /// yt-dlp's JSON for a page is a few hundred KiB; a bound keeps a
    /// hostile one from taking the memory.
    static let maximumOutput = 32 << 20

    /// With `socketTimeout` ([network] timeout), the whole run may take
    /// three of those waits when that is longer than `timeout`.
    public init(program: String = "yt-dlp", format: String = YTDL.videoFormat, timeout: Double = 60, socketTimeout: Int? = nil) {
        self.program = program
        self.format = format
        self.timeout = max(timeout, Double(socketTimeout ?? 0) * 3)
        self.socketTimeout = socketTimeout
    }

    /// The program's path, if it is there and executable.
    public var executable: String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for folder in folders {
            let path = "\(folder)/\(program)"
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    public func resolve(_ page: URL, cancellation: PageCancellation) throws(PageError) -> ResolvedPage {
        guard PageRules.isWeb(page) else { throw .refused("only http and https pages are resolved: \(page.absoluteString.redactingUserinfo)") }
        // yt-dlp's arguments are there for every user of the machine to read (ps).
        if page.user != nil || page.password != nil {
            throw .refused("the page \(page.absoluteString.redactingUserinfo) has a user name or password in its address, which yt-dlp's command line would show to every user of this machine; give yt-dlp the login in ~/.netrc (--netrc in its config) instead")
        }
        guard let path = executable else { throw .noResolver }
        let wait = socketTimeout.map { ["--socket-timeout", String($0)] } ?? []
        let output = try run(path, arguments: [
            "--no-warnings", "-J", "--flat-playlist", "--no-playlist",
            "--write-subs", "--sub-langs", "all", "--sub-format", "ass/srt/vtt/best",
        ] + wait + ["-f", format, "--", page.absoluteString], page: page, cancellation: cancellation)
        return try Self.read(output, page: page)
    }

    /// Runs yt-dlp in a process group of its own with nothing on its
    /// standard input; its output, or its last error line. Past the
    /// timeout (or cancelled) the whole group is ended: SIGTERM, then
    /// SIGKILL after a grace period, and no wait after that is unbounded.
    private func run(_ path: String, arguments: [String], page: URL, cancellation: PageCancellation) throws(PageError) -> [UInt8] {
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard mp_pipe_cloexec(&outputPipe) == 0 else { throw .failed("cannot run yt-dlp: \(String(cString: strerror(errno)))") }
        guard mp_pipe_cloexec(&errorPipe) == 0 else {
            close(outputPipe[0]); close(outputPipe[1])
            throw .failed("cannot run yt-dlp: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        mp_spawn_close_from(&actions, 3)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // A group of its own: its own children (ffprobe, a JS runtime) end with it.
        let spawned = cancellation.isCancelled
            ? ECANCELED : SpawnAttributes.ownGroup.with { posix_spawn(&pid, path, &actions, &$0, argv, Glibc.environ) }
        close(outputPipe[1])
        close(errorPipe[1])
        guard spawned == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            if spawned == ECANCELED { throw .failed("stopped before yt-dlp read \(page.absoluteString.redactingUserinfo)") }
            // Only a missing or forbidden program means "install it".
            if spawned == ENOENT || spawned == EACCES { throw .noResolver }
            throw .failed("cannot run yt-dlp (\(path)): \(String(cString: strerror(spawned)))")
        }
        cancellation.started(group: pid)
        // Both pipes drained at once (a full stderr must not stall its stdout).
        let collected = Collected()
        let group = DispatchGroup()
        for (descriptor, isOutput) in [(outputPipe[0], true), (errorPipe[0], false)] {
            group.enter()
            let thread = Thread {
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { break }
                    if bytes.count < Self.maximumOutput { bytes += chunk[..<count] }
                }
                close(descriptor)
                collected.set(bytes, output: isOutput)
                group.leave()
            }
            thread.name = "mediaplay.ytdl"
            thread.start()
        }
        // yt-dlp's own wait on a server is real latency: the timeout is real
        // time. A cancel ends the group, which ends this wait at once.
        var finished = group.wait(timeout: .now() + timeout) == .success
        let ended = !finished || cancellation.isCancelled
        if !finished {
            kill(-pid, SIGTERM)
            finished = group.wait(timeout: .now() + Self.grace) == .success
            if !finished {
                kill(-pid, SIGKILL)
                // A grandchild that left the group may still hold a pipe:
                // its reader is left to it, never waited for without end.
                _ = group.wait(timeout: .now() + Self.grace)
            }
        }
        // No kill after this: once reaped, the group's number may be another's.
        cancellation.finished()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let (stdout, stderr) = collected.value
        if cancellation.isCancelled {
            throw .failed("stopped before yt-dlp read \(page.absoluteString.redactingUserinfo)")
        }
        if ended {
            throw .failed("yt-dlp found nothing in \(page.absoluteString.redactingUserinfo) within \(Int(timeout)) s (the site is slow or unreachable)")
        }
        if stdout.count >= Self.maximumOutput {
            throw .failed("yt-dlp's answer for \(page.absoluteString.redactingUserinfo) is larger than \(Self.maximumOutput >> 20) MiB")
        }
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 else {
            let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline)
            let last = lines.last { $0.hasPrefix("ERROR") } ?? lines.last ?? (exited ? "exit status \(code)" : "ended by signal \(status & 0x7F)")
            var reason = String(last)
            if reason.hasPrefix("ERROR: ") { reason.removeFirst(7) }
            throw .failed("yt-dlp cannot read \(page.absoluteString.redactingUserinfo): \(DisplayWidth.singleLine(String(reason.prefix(300))))")
        }
        return stdout
    }

    /// yt-dlp's JSON (`-J`) as a resolution: the media checked (http or
    /// https only), numbers range-checked, text made safe for a terminal.
    public static func read(_ json: [UInt8], page: URL) throws(PageError) -> ResolvedPage {
        let root: JSONValue
        do {
            root = try JSONParser.parse(json).value
        } catch {
            throw .failed("yt-dlp's answer for \(page.absoluteString.redactingUserinfo) is not JSON (\(error))")
        }
        guard case .object = root else { throw .failed("yt-dlp's answer for \(page.absoluteString.redactingUserinfo) is not an object") }
        if string(root["_type"]?.value) == "playlist" {
            let count = if case let .array(entries)? = root["entries"]?.value { entries.count } else { 0 }
            throw .failed("\(page.absoluteString.redactingUserinfo) is a playlist of \(count) items; play one of them")
        }
        let (media, audio) = try chooseMedia(root, page: page)
        let live = root["is_live"]?.value == .bool(true) || string(root["live_status"]?.value) == "is_live"
        var chapters: [Chapter] = []
        if case let .array(list)? = root["chapters"]?.value {
            for entry in list.prefix(10_000) {
                guard let start = CheckedNumber.time(number(entry.value["start_time"]?.value)) else { continue }
                let title = string(entry.value["title"]?.value).map { DisplayWidth.singleLine(String($0.prefix(500))) } ?? "Chapter \(chapters.count + 1)"
                chapters.append(Chapter(start: start, title: title))
            }
        }
        var subtitles: [ResolvedPage.Subtitle] = []
        if case let .object(languages)? = root["requested_subtitles"]?.value {
            for (language, entry) in languages.prefix(100) {
                // A subtitle from anywhere but the web is left out.
                guard let text = string(entry.value["url"]?.value), let url = URL(string: text), PageRules.isWeb(url) else { continue }
                let safe = language.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }
                subtitles.append(ResolvedPage.Subtitle(url: url, language: safe && language.count <= 20 ? language : nil))
            }
        }
        let thumbnail = string(root["thumbnail"]?.value).flatMap { URL(string: $0) }.flatMap { PageRules.isWeb($0) ? $0 : nil }
        let title = string(root["title"]?.value).map { DisplayWidth.singleLine(String($0.prefix(500))) }.flatMap { $0.isEmpty ? nil : $0 }
        return ResolvedPage(
            title: title, duration: live ? nil : CheckedNumber.duration(number(root["duration"]?.value)), thumbnail: thumbnail,
            chapters: chapters.sorted { $0.start < $1.start }, subtitles: subtitles, media: media, audio: audio, isLive: live
        )
    }

    /// What plays: the formats yt-dlp chose. Video and audio apart in one
    /// DASH or HLS manifest play from the manifest (both tracks, in sync);
    /// apart as two files, the pictures' file with the sound's beside it.
    private static func chooseMedia(_ root: JSONValue, page: URL) throws(PageError) -> (ResolvedMedia, ResolvedMedia?) {
        var requested: [JSONValue] = []
        if case let .array(list)? = root["requested_formats"]?.value { requested = list.map(\.value) }
        if requested.isEmpty { requested = [root] }
        if requested.count > 1 {
            let manifests = Set(requested.compactMap { string($0["manifest_url"]?.value) })
            if manifests.count == 1, requested.allSatisfy({ isAdaptive($0) }), let manifest = manifests.first {
                return (ResolvedMedia(url: try PageRules.check(manifest, page: page), headers: headers(requested[0], for: manifest), isManifest: true), nil)
            }
            // Two files: the pictures' and the sound's, played together.
            let video = requested.first { string($0["vcodec"]?.value) != "none" }
            let audio = requested.first { string($0["acodec"]?.value) != "none" && string($0["vcodec"]?.value) == "none" }
            if requested.count == 2, let video, let audio {
                let pictures = try format(video, page: page)
                let sound = try format(audio, page: page)
                if !pictures.isManifest, !sound.isManifest { return (pictures, sound) }
            }
            // Else the best single format that holds both.
            if case let .array(formats)? = root["formats"]?.value,
               let both = formats.map(\.value).last(where: { string($0["vcodec"]?.value) != "none" && string($0["acodec"]?.value) != "none" && string($0["url"]?.value) != nil }) {
                return (try format(both, page: page), nil)
            }
        }
        return (try format(requested[0], page: page), nil)
    }

    private static func isAdaptive(_ format: JSONValue) -> Bool {
        let proto = string(format["protocol"]?.value) ?? ""
        return proto.contains("dash") || proto.contains("m3u8")
    }

    private static func format(_ format: JSONValue, page: URL) throws(PageError) -> ResolvedMedia {
        let proto = string(format["protocol"]?.value) ?? "https"
        if proto.contains("dash") {
            guard let manifest = string(format["manifest_url"]?.value) ?? string(format["url"]?.value) else {
                throw .failed("yt-dlp gave no address for the media of \(page.absoluteString.redactingUserinfo)")
            }
            return ResolvedMedia(url: try PageRules.check(manifest, page: page), headers: headers(format, for: manifest), isManifest: true)
        }
        guard let text = string(format["url"]?.value) else {
            throw .failed("yt-dlp gave no address for the media of \(page.absoluteString.redactingUserinfo)")
        }
        let url = try PageRules.check(text, page: page)
        let headers = headers(format, for: text)
        if proto.contains("m3u8") { return ResolvedMedia(url: url, headers: headers, isManifest: true) }
        guard proto == "http" || proto == "https" else {
            throw .refused("the media of \(page.absoluteString.redactingUserinfo) comes over \(DisplayWidth.singleLine(String(proto.prefix(40)))); mediaplay plays http, https, HLS and DASH")
        }
        return ResolvedMedia(url: url, headers: headers, isManifest: false)
    }

    /// The headers a format asks for, as they may go on a request: names of
    /// token characters, values without line breaks; none that would change
    /// the bytes (the cache asks for them unencoded, by range).
    /// The cookies come from its `cookies` field (yt-dlp 2023.07 and
    /// later), those whose Domain and Path cover `media`, or from an older
    /// yt-dlp's Cookie header.
    private static func headers(_ format: JSONValue, for media: String) -> [String: String] {
        var headers: [String: String] = [:]
        if let jar = string(format["cookies"]?.value), let url = URL(string: media),
           let line = cookies(jar, for: url), line.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) {
            headers["Cookie"] = line
        }
        guard case let .object(members)? = format["http_headers"]?.value else { return headers }
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
        for (name, value) in members.prefix(50) {
            guard let value = string(value.value), !name.isEmpty, name.count <= 100, value.count <= 4096,
                  name.unicodeScalars.allSatisfy({ $0.isASCII && token.contains($0) }),
                  value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { continue }
            if ["accept-encoding", "range", "if-range", "host", "content-length", "connection"].contains(name.lowercased()) { continue }
            // The `cookies` field, when there is one, says which go where.
            if name.lowercased() == "cookie", format["cookies"] != nil { continue }
            headers[name] = value
        }
        return headers
    }

    /// yt-dlp's `cookies` ("a=1; Domain=.example.org; Path=/; Secure;
    /// b=2; …": each cookie followed by its attributes) as the Cookie line
    /// for `url`: a cookie with a Domain only on that host or below it,
    /// with a Path only under it, a Secure one only over https.
    public static func cookies(_ text: String, for url: URL) -> String? {
        guard let host = url.host?.lowercased(), text.utf8.count <= 65536 else { return nil }
        struct Cookie { var pair: String; var domain: String?; var path: String?; var secure = false }
        var parsed: [Cookie] = []
        for part in text.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            let name = part.split(separator: "=", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            let value = part.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init)
            switch name {
            case "domain": if !parsed.isEmpty { parsed[parsed.count - 1].domain = value?.lowercased() }
            case "path": if !parsed.isEmpty { parsed[parsed.count - 1].path = value }
            case "secure": if !parsed.isEmpty { parsed[parsed.count - 1].secure = true }
            case "expires", "version", "max-age", "httponly", "samesite", "comment": continue
            default: if part.contains("=") { parsed.append(Cookie(pair: part)) }
            }
        }
        let path = url.path.isEmpty ? "/" : url.path
        let sent = parsed.filter { cookie in
            if cookie.secure, url.scheme?.lowercased() != "https" { return false }
            if let domain = cookie.domain.map({ $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }) {
                guard !domain.isEmpty, host == domain || host.hasSuffix("." + domain) else { return false }
            }
            if let prefix = cookie.path, !prefix.isEmpty, prefix != "/" {
                guard path == prefix || path.hasPrefix(prefix.hasSuffix("/") ? prefix : prefix + "/") else { return false }
            }
            return true
        }
        return sent.isEmpty ? nil : sent.map(\.pair).joined(separator: "; ")
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case let .string(text)? = value { return text }
        return nil
    }

    private static func number(_ value: JSONValue?) -> Double? {
        if case let .number(text)? = value { return Double(text) }
        return nil
    }
}

/// What the two pipe readers collected.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var output: [UInt8] = []
    private var errors: [UInt8] = []

    func set(_ bytes: [UInt8], output isOutput: Bool) {
        lock.withLock { if isOutput { output = bytes } else { errors = bytes } }
    }

    var value: ([UInt8], [UInt8]) { lock.withLock { (output, errors) } }
}
