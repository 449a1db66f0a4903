import Foundation
import Testing
import InProcessRunner
import TestKit

/// Settings while no background player runs: the kept values change and
/// the next start plays with them (`speed 1` used to be exit 69).
@Suite struct SettingsWithoutAPlayerTests {
    @Test func keptSettingsChangeAndTheNextStartHasThem() async throws {
        let world = try await ToneFeedHome(long: true)
        let speed = try await world.runInProcess("speed", "1.5")
        #expect(speed.status == 0, "\(speed.stderr)")
        #expect(speed.stdout == "🔊 volume 100 % · speed 1.5× (kept for the background player's next start; it is not running)\n")
        let volume = try await world.runInProcess("volume", "-20")
        #expect(volume.stdout.hasPrefix("🔊 volume 80 % · speed 1.5×"), "\(volume.stdout)")
        let modes = try await world.runInProcess("repeat", "all")
        #expect(modes.stdout.hasPrefix("autoplay on · repeat all · shuffle off (kept"), "\(modes.stdout)")
        #expect(world.daemonPID == nil, "no player was started for a setting")
        // The player starts with them.
        #expect(try await world.runInProcess("toggle", "1").status == 0)
        let running = try await world.runInProcess("volume", "--json")
        let settings = try JSONSerialization.jsonObject(with: Data(running.stdout.utf8)) as? [String: Any]
        #expect(settings?["volume"] as? Int == 80 && settings?["speed"] as? Double == 1.5, "\(running.stdout)")
        #expect(try await world.runInProcess("repeat").stdout == "autoplay on · repeat all · shuffle off\n")
        _ = try await world.runInProcess("quit")
    }
}
