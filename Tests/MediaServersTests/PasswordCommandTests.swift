import Foundation
import MediaModel
import MediaplayCommon
import Testing
import TestKit

/// `password-command` (a server feed's and `[mpd]`'s): its first line, or
/// one line naming the section when it fails, prints nothing, or never ends.
@Suite struct PasswordCommandTests {
    @Test func itsFirstLineIsThePassword() throws {
        #expect(try PasswordCommand.firstLine(of: "printf 'sesame\\nignored\\n'", section: "mpd") == "sesame")
    }

    @Test func aFailingCommandIsOneLineNamingItsSection() {
        let error = #expect(throws: CLIError.self) { try PasswordCommand.firstLine(of: "echo half; exit 3", section: "mpd") }
        #expect(error?.message == "[mpd] password-command printed no password (exit 3); check the command in config.toml")
        #expect(error?.exitCode == .config)
    }

    /// A command that never prints is given up when the clock passes its
    /// bound (moved by the test: nothing waits for real), and ended.
    @Test func aCommandThatNeverEndsIsGivenUpAtItsBound() async throws {
        let clock = ManualClock()
        let folder = try TemporaryDirectory()
        let pidFile = folder.path + "/pid"
        // It waits on a condition: a thread of its own, never the pool's.
        let outcome = Task {
            await offPool { () -> String in
                do throws(CLIError) {
                    return try PasswordCommand.firstLine(of: "echo $$ > \(pidFile); exec sleep 600", section: "mpd", clock: clock)
                } catch {
                    return error.message
                }
            }
        }
        #expect(try await Wait.forFile(pidFile, size: 2))
        await clock.waitForSleepers(1)
        clock.advance(by: PasswordCommand.timeout)
        #expect(await outcome.value == "[mpd] password-command printed no password within 10 s; check the command in config.toml")
        let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try await Wait.forExit(of: pid, timeout: 30), "the command is ended")
    }
}
