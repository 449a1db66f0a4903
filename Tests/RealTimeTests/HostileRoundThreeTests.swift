import Foundation
import Testing
import TestKit

/// The third probe's stopped daemon, timed against the wall clock: its
/// clients give up within their timeouts.
@Suite struct HostileRoundThreeTests {
    /// A stopped background player: clients give up after their timeout
    /// with one line naming its pid, and what they asked is not done when
    /// it continues.
    @Test func clientsOfAStoppedPlayerGiveUpAndTheirRequestsLapse() async throws {
        // A minute long: it must not end while the test looks at it.
        let tone = try await Fixtures.make("minute.wav", ["-f", "lavfi", "-i", "sine=duration=60", "-c:a", "pcm_s16le"])
        let home = try await UserHome.withFeed(playing: tone)
        #expect(try await home.run("toggle", "1").status == 0)
        #expect(try await home.run("toggle", "1").stdout.hasPrefix("⏸ paused"))
        let pid = try #require(home.daemonPID)
        kill(pid, SIGSTOP)
        var environment = home.environment
        environment["MEDIAPLAY_CLIENT_TIMEOUT"] = "1"
        let started = Date()
        let status = try await Mediaplay.run(["status"], environment: environment)
        let toggle = try await Mediaplay.run(["toggle", "1"], environment: environment)
        let waited = Date().timeIntervalSince(started)
        kill(pid, SIGCONT)
        #expect(status.status == 69 && status.stderr.contains("does not answer (pid \(pid))"), "\(status.stderr)")
        #expect(toggle.status == 69 && toggle.stderr.contains("does not answer"), "\(toggle.stderr)")
        #expect(waited < 8, "two clients gave up within their timeouts: \(waited) s")
        let after = try await home.run("status")
        #expect(after.stdout.hasPrefix("⏸ paused"), "the abandoned toggle was not carried out: \(after.stdout)")
        _ = try await home.run("quit")
    }
}
