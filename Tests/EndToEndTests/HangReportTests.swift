import Foundation
import Glibc
import Testing
import TestKit

/// The test kit's bound on a program it waits for: a hung program fails its
/// test with what each of its threads was doing, instead of holding the
/// whole run until CI's own limit ends it with nothing said.
@Suite struct HangReportTests {
    @Test func aProgramPastItsBoundIsKilledWithItsStacksSaid() async throws {
        let child = try ChildProcess("/bin/sleep", ["600"], environment: [:])
        let status = await offPool { child.waitUntilExit(bound: 1) }
        #expect(ChildProcess.killedBySignal(status) && ChildProcess.code(status) == SIGKILL)
        let report = try #require(child.hangReport)
        #expect(report.contains("/bin/sleep 600 (pid \(child.pid)) still running after 1 s"), "\(report)")
        // gdb's stack of the one thread: sleep is in the kernel's nanosleep.
        #expect(report.contains("#0") && report.contains("sleep"), "\(report)")
    }

    @Test func aProgramWithinItsBoundHasNoReport() async throws {
        let child = try ChildProcess("/bin/true", [], environment: [:])
        let status = await offPool { child.waitUntilExit() }
        #expect(ChildProcess.code(status) == 0 && child.hangReport == nil)
    }
}
