import Foundation
import Glibc
import MediaFeed
import MediaModel
import MediaMPD
import MediaSession
import MediaWiring
import SessionFakes
import TestKit

/// A plain TCP client of MPD's protocol: a line out, the answer's lines in
/// (up to `OK` or `ACK`). Blocking; tests call it through `offPool`.
final class MPDTestClient: @unchecked Sendable {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    /// The greeting (`OK MPD 0.23.5`), or a refusal.
    private(set) var greeting = ""

    /// `receiveBuffer`: the kernel's buffer for what this client has not read (nil: the system's).
    init(port: UInt16, host: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { throw MPDTestFailure("cannot resolve \(host)") }
        defer { freeaddrinfo(list) }
        descriptor = socket(list.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        guard Glibc.connect(descriptor, list.pointee.ai_addr, list.pointee.ai_addrlen) == 0 else {
            close(descriptor)
            throw MPDTestFailure("cannot connect to \(host):\(port): \(String(cString: strerror(errno)))")
        }
        // A bound on a failure, never a pace.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        greeting = line() ?? ""
    }

    deinit { close(descriptor) }

    static func connect(port: UInt16, host: String = "127.0.0.1") async throws -> MPDTestClient {
        try await offPool { try MPDTestClient(port: port, host: host) }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// The next line; nil at the end of the stream.
    func line() -> String? {
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// The next `count` bytes (a binary chunk); fewer at the end of the stream.
    func bytes(_ count: Int) -> [UInt8] {
        while buffer.count < count {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard received > 0 else { break }
            buffer.append(contentsOf: chunk[0..<received])
        }
        let taken = Array(buffer.prefix(count))
        buffer.removeFirst(taken.count)
        return taken
    }

    /// Lines up to and with the closing `OK` or `ACK` (fewer at the end of the stream).
    func answer() -> [String] {
        var lines: [String] = []
        while let line = line() {
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") { break }
        }
        return lines
    }

    /// Blocking: only inside offPool (a distinct name, so that `await
    /// client.call` can never pick it and block the cooperative pool, where
    /// a command the server runs as a task would then wait for a thread).
    func blockingCall(_ command: String) -> [String] {
        send(command + "\n")
        return answer()
    }

    func call(_ command: String) async -> [String] {
        await offPool { self.blockingCall(command) }
    }

    /// The answer's `key: value` pairs (the closing line left out).
    static func pairs(_ lines: [String]) -> [(String, String)] {
        lines.compactMap { line in
            guard let colon = line.range(of: ": ") else { return nil }
            return (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
        }
    }

    static func value(_ key: String, in lines: [String]) -> String? {
        pairs(lines).first { $0.0 == key }?.1
    }
}

/// Short tagged MP3 files made by the ffmpeg CLI, one folder of music.
struct MusicFolder: Sendable {
    let folder: TemporaryDirectory
    let files: [String]

    static let songs = [("Song One", "Artist A", "First Album", 1), ("Song Two", "Artist B", "First Album", 2), ("Song Three", "Artist A", "Second Album", 3)]

    static func make() async throws -> MusicFolder {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/music", withIntermediateDirectories: true)
        var files: [String] = []
        for (index, song) in songs.enumerated() {
            let path = folder.path + "/music/song\(index + 1).mp3"
            let made = try await Fixtures.run("/usr/bin/ffmpeg", [
                "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=frequency=\(300 + 100 * index):duration=40",
                "-metadata", "title=\(song.0)", "-metadata", "artist=\(song.1)", "-metadata", "album=\(song.2)", "-metadata", "track=\(song.3)",
                "-c:a", "libmp3lame", "-b:a", "64k", path,
            ])
            guard made.status == 0 else { throw MPDTestFailure("ffmpeg: \(String(decoding: made.stderr, as: UTF8.self))") }
            files.append(path)
        }
        return MusicFolder(folder: folder, files: files)
    }

    var feed: Feed {
        Feed(title: "music", items: files.enumerated().map { index, path in
            FeedItem(position: index + 1, id: "song\(index + 1)", title: "song\(index + 1)", kind: .audio, source: .file(path))
        })
    }
}

/// An MPD server over a session whose engine is the fake one (no device):
/// every command reaches the session as it would in the daemon.
final class MPDServerUnderTest: Sendable {
    let session: MediaSession
    let engine: FakeEngine
    let server: MPDServer

    /// What the server logged, one line each.
    let logged: AsyncStream<String>

    init(feed: Feed, password: String? = nil, maximumClients: Int = 100, writeTimeout: Int = 10, readTimeout: Int = 60) throws {
        let (logged, logging) = AsyncStream<String>.makeStream()
        self.logged = logged
        engine = FakeEngine()
        session = MediaSession(feed: feed, store: nil, positions: nil, engine: engine)
        server = try MPDServer(
            session: session,
            options: MPDServer.Options(address: try MPDAddress(parsing: "127.0.0.1:0"), password: password, maximumClients: maximumClients, writeTimeout: writeTimeout, readTimeout: readTimeout),
            details: { items in ItemDetails.lookup(items, folder: nil) },
            // The daemon's: the item's picture when it is a file here.
            cover: { item in if case let .file(path)? = item.thumbnail { path } else { nil } },
            log: { logging.yield($0) }
        )
        server.start()
    }

    var port: UInt16 { server.port }

    func client() async throws -> MPDTestClient { try await MPDTestClient.connect(port: port) }

    deinit { server.stop() }
}

/// A feed of three items whose files the fake engine never opens.
func fakeFeed(_ folder: TemporaryDirectory) throws -> Feed {
    Feed(title: "t", items: try (1...3).map { number in
        FeedItem(position: number, id: "item\(number)", title: "Item \(number)", kind: .audio, source: .file(try folder.write("item\(number).mp3", "not decoded")))
    })
}

struct MPDTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Whether `condition` holds, looked at now and after each of the session's
/// events; thirty seconds without it is a failure rather than a hang.
func eventually(_ session: MediaSession, within seconds: Double = 30, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let events = session.events()
    if condition() { return true }
    return await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in events where condition() { return true }
            return false
        }
        group.addTask {
            try? await SystemClock.shared.sleep(for: seconds)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first || condition()
    }
}
