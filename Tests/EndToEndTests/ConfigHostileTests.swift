import Foundation
import Testing
import InProcessRunner
import TestKit

/// config.toml with control characters (issue #41, item 5), through the
/// built programs: a NUL in a key crashed every command (SIGILL, no
/// message); now it is exit 78 at its line and column, and `status` and
/// `quit` still reach a background player that is running.
@Suite struct ConfigHostileTests {
    @Test func aNULInAKeyIsExit78WhereItStands() async throws {
        let home = try await ConfigFileTests.home()
        #expect(try await home.runInProcess("toggle", "1").status == 0)
        for section in ["keys", "feeds"] {
            try home.writeConfig("[\(section)]\n\"a\\u0000\" = \"quit\"\n")
            for command in [["list"], ["toggle", "1"], ["fetch", "1"]] {
                let result = try await Mediaplay.runInProcess(command, environment: home.environment)
                #expect(result.status == 78 && !result.killedBySignal, "\(section) \(command): \(result.status) \(result.stderr)")
                #expect(result.stderr.hasPrefix("mediaplay: config.toml:2:3: control character U+0000"), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
        }
        // A raw NUL in a value, where the library read the text only up to it.
        try home.writeConfig("[feed]\ndefault = \"/a\u{0}b\"\n")
        let raw = try await home.runInProcess("list")
        #expect(raw.status == 78 && raw.stderr.hasPrefix("mediaplay: config.toml:2:14: control character U+0000"), "\(raw.stderr)")

        // The background player read its settings before: it answers, and quits.
        let status = try await home.runInProcess("status")
        #expect(status.status == 0 && status.stdout.contains("Tone"), "\(status.stdout) \(status.stderr)")
        #expect(status.stderr.contains("config.toml:2:14:"), "the mistake is still said: \(status.stderr)")
        let quit = try await home.runInProcess("quit")
        #expect(quit.status == 0, "\(quit.stderr)")
        #expect(try await home.runInProcess("status").status == 69)
    }
}
