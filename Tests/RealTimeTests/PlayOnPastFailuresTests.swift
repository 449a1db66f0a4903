import Foundation
import Testing
import TestKit

/// The background player plays on past a broken file and a missing entry
/// (autoplay), and `prev` steps back over them: what reaches the device is
/// ffmpeg's decodings of the good files, joined. Real time: SDL's disk
/// driver records what the device played.
@Suite(.serialized) struct PlayOnPastFailuresTests {
    @Test func autoplayAndPrevGoPastABrokenFileAndAMissingEntry() async throws {
        let one = try await Fixtures.make("skip-one.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "pcm_s16le"])
        let three = try await Fixtures.make("skip-three.wav", ["-f", "lavfi", "-i", "sine=frequency=660:duration=1", "-c:a", "pcm_s16le"])
        let home = try await UserHome()
        let broken = home.folder.path + "/broken.wav"
        try Data(TestHTTPServer.bytes(count: 50_000, seed: 43)).write(to: URL(fileURLWithPath: broken))
        home.feed = try home.folder.write("mix.m3u", "#EXTM3U\n\(one)\n\(broken)\n\(home.folder.path)/missing.wav\n\(three)\n")
        defer { Task { _ = try? await home.run("quit") } }
        #expect(try await home.run("toggle", "1").status == 0)
        let observer = try await home.observePlayer()
        // Item 4 plays to its end: 2 and 3 were gone past.
        let ended = await observer.waitFor { $0["item"] as? Int == 4 && PlayerObserver.state($0) == "ended" }
        #expect(ended != nil, "the fourth item ended: \(String(describing: observer.last))")
        let status = try await home.run("status")
        #expect(status.stdout.contains("✗ failed 2 \"broken\": it is not a media file FFmpeg can read"), "each failure on its own row: \(status.stdout)")
        #expect(status.stdout.contains("✗ failed 3 \"missing\""), "\(status.stdout)")
        #expect(!status.stdout.contains("item 2 \"broken\""), "a row names its item once: \(status.stdout)")
        let joined = try await Fixtures.referencePCM(one) + (try await Fixtures.referencePCM(three))
        try await Wait.until(changesAt: home.folder.path) { try DeviceRecording.holds(home.disk, exactly: joined) }
        #expect(try DeviceRecording.holds(home.disk, exactly: joined), "the device got the good files joined, nothing of the bad ones")
        // prev from the last item steps back over both to the first.
        let back = try await home.run("prev")
        #expect(back.status == 0 && back.stdout.hasPrefix("▶ playing 1 \""), "\(back.stdout)\(back.stderr)")
        _ = try await home.run("quit")
    }
}
