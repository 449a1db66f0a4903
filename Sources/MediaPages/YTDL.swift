import Foundation
import MediaFeed
import MediaInterfaces
import MediaModel
import MediaTerminal

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

    /// mpv's choice: the best video and audio, else the best single file.
    public static let videoFormat = "bestvideo+bestaudio/best"
    /// When no picture will show: the audio alone, where the site has it.
    public static let audioFormat = "bestaudio/best"
    /// yt-dlp's JSON for a page is a few hundred KiB; a bound keeps a
    /// hostile one from taking the memory.
    static let maximumOutput = 32 << 20

    public init(program: String = "yt-dlp", format: String = YTDL.videoFormat, timeout: Double = 60) {
        self.program = program
        self.format = format
        self.timeout = timeout
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

    public func resolve(_ page: URL) throws(PageError) -> ResolvedPage {
        guard PageRules.isWeb(page) else { throw .refused("only http and https pages are resolved: \(page.absoluteString.redactingUserinfo)") }
        guard let path = executable else { throw .noResolver }
        let output = try run(path, arguments: [
            "--no-warnings", "-J", "--flat-playlist", "--no-playlist",
            "--write-subs", "--sub-langs", "all", "--sub-format", "ass/srt/vtt/best",
            "-f", format, "--", page.absoluteString,
        ], page: page)
        return try Self.read(output, page: page)
    }

    /// Runs yt-dlp with nothing on its standard input; its output, or its
    /// last error line.
    private func run(_ path: String, arguments: [String], page: URL) throws(PageError) -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .noResolver
        }
        // Both pipes drained at once (a full stderr must not stall its stdout).
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            group.enter()
            let thread = Thread {
                let handle = pipe.fileHandleForReading
                var bytes: [UInt8] = []
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    if bytes.count < Self.maximumOutput { bytes += chunk }
                }
                collected.set(bytes, output: isOutput)
                group.leave()
            }
            thread.name = "mediaplay.ytdl"
            thread.start()
        }
        // yt-dlp's own wait on a server is real latency: the timeout is real time.
        let finished = group.wait(timeout: .now() + timeout) == .success
        if !finished {
            process.terminate()
            group.wait()
        }
        process.waitUntilExit()
        let (stdout, stderr) = collected.value
        if !finished {
            throw .failed("yt-dlp found nothing in \(page.absoluteString.redactingUserinfo) within \(Int(timeout)) s (the site is slow or unreachable)")
        }
        if stdout.count >= Self.maximumOutput {
            throw .failed("yt-dlp's answer for \(page.absoluteString.redactingUserinfo) is larger than \(Self.maximumOutput >> 20) MiB")
        }
        guard process.terminationStatus == 0 else {
            let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline)
            let last = lines.last { $0.hasPrefix("ERROR") } ?? lines.last ?? "exit status \(process.terminationStatus)"
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
