import Foundation
import MediaControl
import Testing
import TestKit

/// One background player per runtime folder, however many clients start
/// one at once: two cold toggles at the same instant started two players,
/// and after `quit` the second took the folder and stayed.
@Suite struct SingleDaemonTests {
    @Test func twoColdTogglesAtOnceStartOnePlayerAndQuitLeavesNone() async throws {
        let tone = try await HostileRoundThreeTests.tone()
        for pair in 1...10 {
            let home = try await UserHome.withFeed(playing: tone)
            defer { for pid in Self.daemons(of: home) { kill(pid, SIGKILL) } }
            async let first = home.run("toggle", "1")
            async let second = home.run("toggle", "1")
            for toggled in try await [first, second] {
                #expect(toggled.status == 0, "pair \(pair): \(toggled.stderr)")
            }
            let running = Self.daemons(of: home)
            #expect(running.count == 1, "pair \(pair): one background player, not \(running)")
            #expect(running == home.daemonPID.map { [$0] }, "pair \(pair): the one that holds the lock")

            let quit = try await home.run("quit")
            #expect(quit.status == 0, "pair \(pair): \(quit.stderr)")
            for pid in running {
                await offPool { ControlClient.waitForExit(of: pid, seconds: 10) }
            }
            let left = Self.daemons(of: home)
            #expect(left.isEmpty, "pair \(pair): no background player after quit, found \(left)")
        }
    }

    /// The background players of `home`'s runtime folder: every process
    /// whose command line is `… daemon … --runtime-dir FOLDER …`.
    static func daemons(of home: UserHome) -> [Int32] {
        let folder = home.folder.path + "/run/mediaplay"
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.compactMap(Int32.init).filter { pid in
            // A zombie's command line is empty: it is no player any more.
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard words.count > 1, words[1] == "daemon", let flag = words.firstIndex(of: "--runtime-dir") else { return false }
            return flag + 1 < words.count && words[flag + 1] == folder
        }.sorted()
    }
}
