import Foundation
import Glibc
import Testing
import InProcessRunner
import TestKit

/// The background player on MPD's protocol, end to end: config.toml's
/// `[mpd] listen`, a daemon started by `toggle`, 50 MPD clients in `idle`
/// woken by `mediaplay toggle`, mpc and `mediaplay status` agreeing, and an
/// address open to other machines refused without a password.
@Suite struct MPDDaemonTests {
    /// A home whose config.toml turns MPD on, over a minute-long tone (it
    /// must not end while the test pauses it).
    final class MPDHome: UserHome, @unchecked Sendable {
        /// Port 0 by default: the system picks a free one as the daemon
        /// binds (a port found free beforehand was taken by a parallel test
        /// before the daemon came to bind it), and the daemon's log says which.
        init(listen: String = "127.0.0.1:0") async throws {
            let tone = try await Fixtures.make("tone-60s.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=60", "-c:a", "pcm_s16le"])
            try await super.init()
            feed = try folder.write("feed.json", #"[{"type": 1, "title": "Long tone", "url": "file://\#(tone)"}, {"type": 1, "title": "Again", "url": "file://\#(tone)"}]"#)
            try FileManager.default.createDirectory(atPath: folder.path + "/config/mediaplay", withIntermediateDirectories: true)
            _ = try folder.write("config/mediaplay/config.toml", "[mpd]\nlisten = \"\(listen)\"\n")
        }

        /// The port the running daemon's MPD listener took, from its log.
        func listeningPort() async throws -> UInt16 {
            let log = folder.path + "/state/mediaplay/daemon.log"
            _ = try await Wait.forFile(log, containing: "MPD: listening on")
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let port = text.firstMatch(of: /MPD: listening on .* \(port (\d+)\)/).flatMap { UInt16($0.1) }
            return try #require(port, "no MPD port in the daemon's log: \(text)")
        }

        override var environment: [String: String] {
            super.environment.merging(["XDG_CONFIG_HOME": folder.path + "/config"]) { $1 }
        }

    }

    struct ConnectionRefused: Error { let port: UInt16 }

    /// One MPD client: a line out, lines in (blocking: used through offPool).
    final class Client: @unchecked Sendable {
        let descriptor: Int32
        private var buffer: [UInt8] = []
        private(set) var greeting: String?

        init(port: UInt16) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard connected == 0 else {
                close(descriptor)
                throw ConnectionRefused(port: port)
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            greeting = line()
        }

        deinit { close(descriptor) }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        func line() -> String? {
            while true {
                if let end = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeSubrange(...end)
                    return line
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return nil }
                buffer.append(contentsOf: chunk[0..<count])
            }
        }

        func answer() -> [String] {
            var lines: [String] = []
            while let line = line() {
                lines.append(line)
                if line == "OK" || line.hasPrefix("ACK") { break }
            }
            return lines
        }
    }

    private func state(_ home: MPDHome) async throws -> String? {
        let result = try await home.run("status", "--json")
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["current"] as? [String: Any])?["state"] as? String
    }

    @Test func fiftyIdleClientsWakeOnAToggleAndMpcAgreesWithStatus() async throws {
        let home = try await MPDHome()
        defer { _ = home.daemonPID.map { kill($0, SIGTERM) } }
        let toggled = try await home.run("toggle", "1")
        #expect(toggled.status == 0, "\(toggled.stderr)")
        let port = try await home.listeningPort()
        let clients = try await offPool { try (0..<50).map { _ in try Client(port: port) } }
        #expect(clients.allSatisfy { $0.greeting == "OK MPD 0.23.5" })
        // Each client hears every change since it connected: the idles
        // cannot miss the pause, however late the server reads them.
        for client in clients { client.send("idle player\n") }
        let paused = try await home.run("toggle", "1")
        #expect(paused.status == 0, "\(paused.stderr)")
        for client in clients {
            #expect(await offPool { client.answer() } == ["changed: player", "OK"])
        }
        let mpc = try await Fixtures.run("/usr/bin/mpc", ["-p", String(port), "status"])
        #expect(String(decoding: mpc.stdout, as: UTF8.self).contains("[paused]  #1/2"))
        #expect(try await state(home) == "paused")
        _ = try await Fixtures.run("/usr/bin/mpc", ["-p", String(port), "play", "2"])
        #expect(try await state(home) == "playing")
        let current = try await Fixtures.run("/usr/bin/mpc", ["-p", String(port), "current"])
        #expect(String(decoding: current.stdout, as: UTF8.self) == "Again\n")
        #expect(try await home.run("quit").status == 0)
    }

    @Test func anAddressOtherMachinesReachNeedsAPassword() async throws {
        let home = try await MPDHome(listen: "0.0.0.0:6600")
        let fromConfig = try await home.runInProcess("daemon", "--foreground")
        #expect(fromConfig.status == 78)
        #expect(fromConfig.stderr.contains("without a password"))
        #expect(fromConfig.stderr.split(separator: "\n").count == 1)
        let fromOption = try await home.runInProcess("daemon", "--foreground", "--mpd", "0.0.0.0:6601")
        #expect(fromOption.status == 64)
        #expect(fromOption.stderr.hasPrefix("mediaplay: --mpd: refusing to serve MPD on 0.0.0.0:6601"))
        #expect(home.daemonPID == nil)
    }
}
