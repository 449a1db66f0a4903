import Foundation

/// A user's home whose feed is a tone (`tone`: 2 s, or 4 s with `long`)
/// and an invalid record (item 2, type 9), with `extraItems` after them:
/// the background player's tests, and those of the commands around it.
public final class ToneFeedHome: UserHome, @unchecked Sendable {
    public let tone: String

    /// `long`: a 4 s tone instead of 2 s, for a test that must pause it
    /// before its end however slowly a loaded machine starts the client.
    public init(extraItems: String = "", long: Bool = false) async throws {
        tone = long
            ? try await Fixtures.make("tone-4s.wav", ["-f", "lavfi", "-i", "aevalsrc=sin(330*2*PI*t)*0.4|sin(440*2*PI*t)*0.4:s=44100:d=4", "-c:a", "pcm_s16le"])
            : try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
        try await super.init()
        feed = try folder.write("feed.json", """
            [{"type": 1, "title": "Tone", "url": "file://\(tone)"},
             {"type": 9, "title": "Odd", "url": "file://\(tone)"}\(extraItems)]
            """)
    }

    /// `mediaplay status --json`, read.
    public func status() async throws -> [String: Any]? {
        let result = try await run("status", "--json")
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
    }
}

/// A user's home whose feed holds one item of each kind browse shows: a
/// tone, a picture with a long title, a clip with a thumbnail, an invalid
/// record, the tone again and the picture again (six in all).
public final class MixedFeedHome: UserHome, @unchecked Sendable {
    public let tone: String
    public let picture: String

    public override init() async throws {
        tone = try await Fixtures.make("tone.wav", Fixtures.audioCodecs.first { $0.name == "tone.wav" }!.arguments)
        picture = try await Fixtures.make(Fixtures.images[0].name, Fixtures.images[0].arguments)
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        try await super.init()
        feed = try folder.write("feed.json", """
            {"title": "Browse test feed", "items": [
             {"type": 1, "title": "Tone", "url": "file://\(tone)", "description": "Two seconds of a sine tone."},
             {"type": 0, "title": "The test pattern, a long title that wraps over two lines and more, much more than fits", "url": "file://\(picture)",
              "description": "A picture made by ffmpeg's testsrc."},
             {"type": 2, "title": "Clip", "url": "file://\(clip)", "thumbnail": "file://\(picture)"},
             {"type": 7, "title": "Odd record", "url": "file://\(tone)"},
             {"type": 1, "title": "Tone again", "url": "file://\(tone)"},
             {"type": 0, "title": "Pattern", "url": "file://\(picture)"}
            ]}
            """)
    }

    /// `mediaplay browse` (pictures as colour blocks) in a terminal of that size.
    public func browse(columns: Int, rows: Int, _ arguments: String...) async throws -> TerminalSession {
        try await TerminalSession(columns: columns, rows: rows, [Mediaplay.executable, "browse", "--images", "blocks"] + arguments, environment: environment)
    }
}

extension UserHome {
    /// A user whose feed is one item playing `file` titled `title`.
    public static func withFeed(playing file: String, title: String = "Tone") async throws -> UserHome {
        let home = try await UserHome()
        home.feed = try home.folder.write("feed.json", #"[{"type": 1, "title": "\#(title)", "url": "file://\#(file)"}]"#)
        return home
    }
}

/// A loopback server serving `/clip.mp4` (`bytes`: pseudo-random, `size`
/// of them), a feed of it (item 1) and of a missing file (item 2,
/// `/gone.mp3`), and a cache folder of its own: `fetch`, `list` and
/// `cache` as processes.
public struct LoopbackClipFeed: Sendable {
    public let server: TestHTTPServer
    public let folder: TemporaryDirectory
    public let feed: String
    public let cacheDir: String
    public let bytes: [UInt8]

    public init(size: Int = 1_000_000) async throws {
        server = try TestHTTPServer()
        folder = try TemporaryDirectory()
        bytes = TestHTTPServer.bytes(count: size, seed: 99)
        server.serve("/clip.mp4", bytes: bytes)
        feed = try folder.write("feed.json", """
            {"title": "Loopback", "items": [
              {"type": 2, "title": "Clip", "url": "\(server.url("/clip.mp4").absoluteString)"},
              {"type": 1, "title": "Gone", "url": "\(server.url("/gone.mp3").absoluteString)"}
            ]}
            """)
        cacheDir = folder.path + "/cache"
    }

    /// `--feed` and `--cache-dir` for a command.
    public var arguments: [String] { ["--feed", feed, "--cache-dir", cacheDir] }

    /// The cache's entry files (locks left out).
    public func entryFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cacheDir + "/entries")) ?? []).filter { !$0.hasSuffix(".lock") }
    }

    /// The cached (complete) file, if any.
    public func dataFile() -> String? {
        entryFiles().first { !$0.hasSuffix(".part") }.map { cacheDir + "/entries/" + $0 }
    }

    /// The size of the part file (0 when there is none).
    public func partSize() -> Int {
        guard let part = entryFiles().first(where: { $0.hasSuffix(".part") }) else { return 0 }
        return ((try? FileManager.default.attributesOfItem(atPath: cacheDir + "/entries/" + part))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

/// What SDL's disk audio driver recorded (`SDL_DISKAUDIOFILE`).
public enum DeviceRecording {
    /// Whether the recording at `disk` holds `reference` exactly. The
    /// driver writes silence around the content: aligned on content (the
    /// first non-zero byte of each, as every fixture's tone starts at zero).
    public static func holds(_ disk: String, exactly reference: [UInt8]) throws -> Bool {
        let recorded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: disk)))
        guard let recordedStart = recorded.firstIndex(where: { $0 != 0 }),
              let referenceStart = reference.firstIndex(where: { $0 != 0 }) else { return false }
        let offset = recordedStart - referenceStart
        guard offset >= 0, offset % 2 == 0, recorded.count >= offset + reference.count else { return false }
        return Array(recorded[offset..<offset + reference.count]) == reference
    }
}
