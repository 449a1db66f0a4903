import Foundation
import Testing
import InProcessRunner
import TestKit

/// Internet radio: a stream with no length plays live in the background
/// player, its ICY title in `status`, never in the cache, seeking refused,
/// a dropped connection made again.
@Suite struct LiveStreamTests {
    struct Scene {
        let server: TestHTTPServer
        let folder: TemporaryDirectory
        let feed: String
        let environment: [String: String]
    }

    /// A CBR MP3 without tags or Xing header, so that it loops cleanly, at 128 kb/s.
    static func scene(_ configure: (inout IcyStreamSpec) -> Void = { _ in }) async throws -> Scene {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        let mp3 = try await Fixtures.make("radio-loop.mp3", [
            "-f", "lavfi", "-i", "sine=frequency=500:duration=4", "-c:a", "libmp3lame", "-b:a", "128k",
            "-write_xing", "0", "-id3v2_version", "0", "-f", "mp3",
        ])
        var spec = IcyStreamSpec(
            audio: Array(try Data(contentsOf: URL(fileURLWithPath: mp3))), metaint: 8192,
            titles: ["Artist One - Song A", "Artist Two - Song B"], titleEvery: 48_000, bytesPerSecond: 16_000
        )
        configure(&spec)
        server.serveLive("/radio", spec)
        let feed = try folder.write("radio.m3u", "#EXTM3U\n#EXTINF:-1,Loopback FM\n\(server.url("/radio").absoluteString)\n")
        try FileManager.default.createDirectory(atPath: folder.path + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = [
            "XDG_STATE_HOME": folder.path + "/state", "XDG_CACHE_HOME": folder.path + "/cache", "XDG_RUNTIME_DIR": folder.path + "/run",
            "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null", "MEDIAPLAY_FEED": feed,
        ]
        return Scene(server: server, folder: folder, feed: feed, environment: environment)
    }

    struct Status: Decodable {
        struct Item: Decodable {
            var item: Int
            var state: String
            var live: Bool?
            var streamTitle: String?
            var duration: Double?
        }
        var current: Item?
    }

    static func status(_ scene: Scene) async throws -> Status.Item? {
        let result = try await Mediaplay.run(["status", "--json"], environment: scene.environment)
        return try? JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8)).current
    }

    /// The background player's socket in `scene`.
    static func socket(_ scene: Scene) -> String { scene.folder.path + "/run/mediaplay/mediaplay.sock" }

    /// Waits (up to `seconds`) for the player to report an item status that
    /// satisfies `condition` (its current item's, then each event's); the
    /// last one reported either way.
    static func waitFor(_ scene: Scene, seconds: Double = 10, _ condition: (Status.Item) -> Bool) async throws -> Status.Item? {
        let observer = try await PlayerObserver(socket: socket(scene), timeout: seconds)
        var last: Status.Item?
        _ = await observer.waitFor { status in
            // Events of the settings have no item.
            guard let data = try? JSONSerialization.data(withJSONObject: status), let item = try? JSONDecoder().decode(Status.Item.self, from: data) else { return false }
            last = item
            return condition(item)
        }
        return last
    }

    @Test func aRadioStreamPlaysLiveWithItsTitle() async throws {
        let scene = try await Self.scene()
        let toggle = try await Mediaplay.runInProcess(["toggle", "1"], environment: scene.environment)
        #expect(toggle.status == 0 && toggle.stdout.hasPrefix("▶ playing 1 \"Loopback FM\" live"), "\(toggle.stdout) \(toggle.stderr)")
        // Up to 20 s: in the busy test phase the stream was seen still
        // buffering after 10 (three times in about ten runs).
        let first = try await Self.waitFor(scene, seconds: 20) { $0.streamTitle == "Artist One - Song A" && $0.state == "playing" }
        #expect(first?.live == true && first?.duration == nil && first?.state == "playing", "\(String(describing: first))")
        // (On a busy machine the stream may be buffering for a moment: its line says so, with the title.)
        let human = try await Mediaplay.runInProcess(["status"], environment: scene.environment)
        #expect((human.stdout.contains("live") || human.stdout.contains("buffering")) && human.stdout.contains("· Artist "), "\(human.stdout)")
        // The title follows the stream (48,000 bytes of audio: 3 s).
        let second = try await Self.waitFor(scene, seconds: 15) { $0.streamTitle == "Artist Two - Song B" }
        #expect(second?.streamTitle == "Artist Two - Song B", "\(String(describing: second))")

        let seek = try await Mediaplay.runInProcess(["seek", "+10"], environment: scene.environment)
        #expect(seek.status != 0 && seek.stderr.contains("is a live stream: it cannot seek"), "\(seek.stderr)")

        // Nothing of it is kept: no entry, no file, and list says not downloaded.
        let cache = try await Mediaplay.runInProcess(["cache", "list", "--json"], environment: scene.environment)
        #expect(cache.stdout.isEmpty, "\(cache.stdout)")
        let folder = scene.folder.path + "/cache/mediaplay"
        let kept = ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).filter { name in
            // The index, locks and the folder's own mark are the cache's, not the stream's.
            guard !name.hasPrefix("index.sqlite"), !name.hasSuffix(".lock"), name != "CACHEDIR.TAG",
                  let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name) else { return false }
            return attributes[.type] as? FileAttributeType == .typeRegular && (attributes[.size] as? Int ?? 0) > 0
        }
        #expect(kept.isEmpty, "\(kept)")

        let stop = try await Mediaplay.runInProcess(["stop"], environment: scene.environment)
        #expect(stop.status == 0, "\(stop.stderr)")
        let connections = scene.server.liveConnections("/radio")
        // A second of nothing: no event tells that a reconnection will not
        // come (the stream's thread ends quietly, and the test server has
        // no event for a new connection).
        try await Task.sleep(for: .seconds(1))
        #expect(scene.server.liveConnections("/radio") == connections, "a stop ends the stream: no reconnection")
        _ = try await Mediaplay.runInProcess(["quit"], environment: scene.environment)
    }

    @Test func aDroppedStreamIsConnectedAgain() async throws {
        // The first two connections (the cache's look, then the first live
        // one) are cut after 24,000 bytes of audio; the third goes on.
        let scene = try await Self.scene { spec in
            spec.dropAfter = 24_000
            spec.drops = 2
        }
        let toggle = try await Mediaplay.runInProcess(["toggle", "1"], environment: scene.environment)
        #expect(toggle.status == 0, "\(toggle.stdout) \(toggle.stderr)")
        // The server's count looked at each time the player reports
        // something (the lost stream's notice, its clearing, positions).
        _ = try await PlayerObserver(socket: Self.socket(scene), timeout: 20).waitFor { _ in scene.server.liveConnections("/radio") >= 3 }
        #expect(scene.server.liveConnections("/radio") >= 3)
        // Still playing after the drop, past the bytes the cut connection gave.
        let later = try await Self.waitFor(scene, seconds: 15) { $0.state == "playing" && ($0.streamTitle ?? "").isEmpty == false }
        let said = try await Mediaplay.runInProcess(["status"], environment: scene.environment)
        #expect(later?.state == "playing", "\(String(describing: later)) \(said.stdout)")
        _ = try await Mediaplay.runInProcess(["quit"], environment: scene.environment)
    }
}
