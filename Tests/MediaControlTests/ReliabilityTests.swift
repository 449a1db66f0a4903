import CLinux
import Foundation
import Logging
import MediaControl
import MediaDaemon
import MediaModel
import Testing
import TestKit

private func errorMessage(_ reply: [String: Any]?) -> String? {
    (reply?["error"] as? [String: Any])?["message"] as? String
}

/// What a socket client, a careless neighbour or a slow observer does to
/// the background player cannot crash it, grow it, or make it act late.
@Suite(.serialized) struct ReliabilityTests {
    /// `volume` with a step at Int's ends: refused with its own reason
    /// (`abs(Int.min)` trapped and killed the daemon), the daemon serves on.
    @Test func aVolumeStepOutOfRangeIsRefusedWithItsReason() async throws {
        let daemon = try await DaemonUnderTest()
        let client = try RawClient(daemon.paths)
        for step in ["-9223372036854775808", "9223372036854775807", "151", "-151"] {
            try client.send(#"{"id":1,"cmd":"volume","step":\#(step)}"# + "\n")
            let reply = await client.reply()
            #expect(errorMessage(reply)?.contains("\"step\" must be a change from −150 to 150") == true, "\(String(describing: reply))")
        }
        try client.send(#"{"id":2,"cmd":"volume","level":151}"# + "\n")
        #expect(errorMessage(await client.reply())?.contains("\"level\" must be from 0 to 150") == true)
        try client.send(#"{"id":3,"cmd":"volume","step":-10}"# + "\n")
        #expect((await client.reply()?["result"] as? [String: Any])?["volume"] as? Int == 90)
        await daemon.stop()
    }

    /// Seeks far past any end, where the length is known or not: the
    /// position stays a time in the item (1e300 was published, then
    /// `status` trapped; 1.7e308 twice made it infinite, unencodable).
    @Test func aSeekFarPastTheEndStaysATime() async throws {
        let daemon = try await DaemonUnderTest()
        let client = try RawClient(daemon.paths)
        for request in [#""seconds":1e300"#, #""seconds":1.7e308"#, #""by":1.7e308"#, #""by":-1.7e308"#] {
            // From a fresh start (a seek to the end ends the item).
            try client.send(#"{"id":1,"cmd":"stop"}"# + "\n")
            _ = await client.reply()
            try client.send(#"{"id":2,"cmd":"toggle","item":1}"# + "\n")
            _ = await client.reply()
            try client.send(#"{"id":3,"cmd":"seek","item":1,\#(request)}"# + "\n")
            let reply = await client.reply()
            if reply?["ok"] as? Bool == true {
                let position = (reply?["result"] as? [String: Any])?["position"] as? Double
                #expect(position.map { $0.isFinite && $0 >= 0 && $0 <= 10 } == true, "\(request): \(String(describing: reply))")
            } else {
                // The virtual clock may have played it out already: refused, never unencodable.
                #expect(errorMessage(reply)?.contains("is not playing or paused") == true, "\(request): \(String(describing: reply))")
            }
            try client.send(#"{"id":4,"cmd":"status"}"# + "\n")
            #expect(await client.reply()?["ok"] as? Bool == true, "every reply still encodes")
        }
        await daemon.stop()
    }

    /// A request read after its client gave up (the daemon was stopped,
    /// then continued) is not carried out behind the client's back: it
    /// expires when the daemon's clock passes its time.
    @Test func anExpiredRequestIsNotCarriedOut() async throws {
        let clock = ManualClock()
        let daemon = try await DaemonUnderTest(clock: clock)
        let client = try RawClient(daemon.paths)
        let past = ClientTimeout.expiry(after: 5, clock: clock)
        clock.advance(by: 5.001)
        try client.send(#"{"id":1,"cmd":"toggle","item":1,"expires":\#(past)}"# + "\n")
        let refused = await client.reply()
        #expect(errorMessage(refused)?.contains("expired") == true, "\(String(describing: refused))")
        try client.send(#"{"id":2,"cmd":"status"}"# + "\n")
        let status = await client.reply()?["result"] as? [String: Any]
        #expect(status?["current"] == nil, "nothing was started: \(String(describing: status))")
        let future = ClientTimeout.expiry(after: 10, clock: clock)
        clock.advance(by: 9.9)
        try client.send(#"{"id":3,"cmd":"toggle","item":1,"expires":\#(future)}"# + "\n")
        #expect((await client.reply()?["result"] as? [String: Any])?["state"] as? String == "playing")
        await daemon.stop()
    }

    /// `quit` is answered once playback has stopped; the lock is free
    /// when the daemon has ended.
    @Test func quitAnswersWhenTheDaemonHasStopped() async throws {
        let daemon = try await DaemonUnderTest()
        let client = try RawClient(daemon.paths)
        try client.send(#"{"id":1,"cmd":"toggle","item":1}"# + "\n")
        #expect(await client.reply()?["ok"] as? Bool == true)
        try client.send(#"{"id":2,"cmd":"quit"}"# + "\n")
        #expect(await client.reply()?["ok"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: daemon.paths.socket), "the socket is gone before the reply")
        await daemon.serving.value
        let probe = open(daemon.paths.lock, O_RDONLY)
        defer { close(probe) }
        #expect(flock(probe, LOCK_EX | LOCK_NB) == 0, "the lock is released")
    }

    /// The runtime folder removed under a running daemon: it notices and
    /// ends (it played on unreachable, and a toggle started a second one).
    @Test func aRemovedRuntimeFolderEndsTheDaemon() async throws {
        let daemon = try await DaemonUnderTest()
        try FileManager.default.removeItem(atPath: daemon.paths.runtimeDirectory)
        // `serve` returns by itself (stop() would make it return anyway: wait without it).
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await daemon.serving.value; return true }
            group.addTask { try? await Task.sleep(for: .seconds(3)); return false }
            let first = await group.next()!
            group.cancelAll()
            // Not ended: quit it, or the group would wait for it forever.
            if !first { daemon.daemon.quit() }
            return first
        }
        #expect(finished, "the daemon ended within 3 s of its folder's removal")
    }

    /// An observer that reads slower than events come is dropped once a
    /// megabyte waits for it: the daemon does not grow without end.
    @Test func aSlowObserverIsDroppedNotBuffered() async throws {
        let daemon = try await DaemonUnderTest()
        let observer = try RawClient(daemon.paths)
        // A small receive buffer, never read: everything queues in the daemon.
        var size: Int32 = 4096
        setsockopt(observer.socket.descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        try observer.send(#"{"id":1,"cmd":"observe"}"# + "\n")
        let flood = try RawClient(daemon.paths)
        try flood.send(#"{"id":1,"cmd":"toggle","item":1}"# + "\n")
        #expect(await flood.reply()?["ok"] as? Bool == true)
        // Each seek is an event of some 200 bytes for the observer.
        let batch = String(repeating: #"{"cmd":"seek","seconds":1}"# + "\n", count: 100)
        for _ in 0..<200 {
            try flood.send(batch)
            for _ in 0..<100 { _ = await flood.reply() }
        }
        // The observer's connection was shut: what it reads ends.
        let ended = await offPool {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { buffer.deallocate() }
            var total = 0
            while true {
                let count = observer.socket.read(into: buffer)
                if count <= 0 { return total }
                total += count
            }
        }
        #expect(ended < 3 << 20, "the observer got at most what was queued for it before the drop: \(ended) bytes")
        try flood.send(#"{"id":2,"cmd":"status"}"# + "\n")
        #expect(await flood.reply()?["ok"] as? Bool == true, "the daemon serves on")
        await daemon.stop()
    }

    /// A runtime folder that is a link, or open to others, is refused and
    /// left as it is: its target is never chmod-ed, nor given a socket.
    @Test func aLinkedOrOpenRuntimeFolderIsRefusedAndNotChanged() async throws {
        let folder = try TemporaryDirectory()
        let shared = folder.path + "/shared"
        mkdir(shared, 0o777)
        chmod(shared, 0o1777)
        let link = folder.path + "/run"
        symlink(shared, link)
        #expect(throws: ControlClientError.self) { _ = try ControlClient.connect(ControlPaths(runtimeDirectory: link)) }
        let daemon = Daemon(paths: ControlPaths(runtimeDirectory: link), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        #expect(throws: DaemonError.self) { try daemon.claim() }
        #expect(throws: DaemonError.self) { try Daemon(paths: ControlPaths(runtimeDirectory: shared), logger: Logger(label: "test")).claim() }
        var info = stat()
        #expect(lstat(shared, &info) == 0 && info.st_mode & 0o7777 == 0o1777, "the shared folder keeps its mode")
        #expect((try FileManager.default.contentsOfDirectory(atPath: shared)).isEmpty, "nothing was put in it")
    }
}

/// One vocabulary on the socket: any control as its command line, and the
/// settings it changes heard by every observer.
@Suite(.serialized) struct VocabularyTests {
    @Test func anObserverHearsAVolumeChangeAndACommandLineIsOneRequest() async throws {
        let daemon = try await DaemonUnderTest()
        let observer = try RawClient(daemon.paths)
        try observer.send(#"{"id":1,"cmd":"observe"}"# + "\n")
        #expect(await observer.reply()?["ok"] as? Bool == true)
        let client = try RawClient(daemon.paths)
        try client.send(#"{"id":2,"cmd":"volume","step":-10}"# + "\n")
        #expect((await client.reply()?["result"] as? [String: Any])?["volume"] as? Int == 90)
        var heard: [String: Any]?
        while let line = await observer.next() {
            if line["event"] as? String == "settings" { heard = line; break }
        }
        #expect((heard?["audio"] as? [String: Any])?["volume"] as? Int == 90, "\(String(describing: heard))")
        // A relative speed is one request, done by the daemon in one step.
        try client.send(#"{"id":3,"cmd":"command","command":"speed *2"}"# + "\n")
        #expect((await client.reply()?["result"] as? [String: Any])?["speed"] as? Double == 2)
        try client.send(#"{"id":4,"cmd":"command","command":"repeat cycle"}"# + "\n")
        #expect((await client.reply()?["result"] as? [String: Any])?["repeat"] as? String == "all")
        try client.send(#"{"id":5,"cmd":"command","command":"volme 5"}"# + "\n")
        #expect(((await client.reply()?["error"] as? [String: Any])?["message"] as? String)?.contains("did you mean") == true)
        await daemon.stop()
    }
}
