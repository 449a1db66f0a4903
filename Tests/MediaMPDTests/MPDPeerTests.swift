import Foundation
import Glibc
import MediaFeed
import MediaModel
import MediaMPD
import MediaSession
import Testing
import TestKit

/// Real peers: mpc drives the server, and a real MPD (started here on the
/// same folder) answers a fixed script with the same keys in the same order.
@Suite struct MPDPeerTests {
    static let mpc = "/usr/bin/mpc"
    static let mpd = "/usr/bin/mpd"

    private func mpc(_ port: UInt16, _ arguments: String...) async throws -> String {
        let result = try await Fixtures.run(Self.mpc, ["-p", String(port)] + arguments)
        #expect(result.status == 0, "mpc \(arguments.joined(separator: " ")): \(String(decoding: result.stderr, as: UTF8.self))")
        return String(decoding: result.stdout, as: UTF8.self)
    }

    @Test func mpcDrivesThePlayer() async throws {
        let music = try await MusicFolder.make()
        let server = try MPDServerUnderTest(feed: music.feed)
        let session = server.session
        let port = server.port
        let playlist = try await mpc(port, "playlist")
        #expect(playlist == "Artist A - Song One\nArtist B - Song Two\nArtist A - Song Three\n")
        _ = try await mpc(port, "play", "2")
        #expect(session.currentStatus()?.id == "song2")
        #expect(session.currentStatus()?.state == .playing)
        _ = try await mpc(port, "pause")
        #expect(session.currentStatus()?.state == .paused)
        _ = try await mpc(port, "toggle")
        #expect(session.currentStatus()?.state == .playing)
        _ = try await mpc(port, "volume", "40")
        #expect(session.audioSettings.volume == 40)
        _ = try await mpc(port, "seek", "0:30")
        #expect(session.currentStatus()?.position == 30)
        _ = try await mpc(port, "single", "off")
        _ = try await mpc(port, "next")
        #expect(session.currentStatus()?.id == "song3")
        #expect(try await mpc(port, "current") == "Artist A - Song Three\n")
        let status = try await mpc(port, "status")
        #expect(status.contains("[playing] #3/3"))
        #expect(status.contains("volume: 40%"))

        // idle player: mpc waits until the pause, made by another front end.
        let output = try TemporaryDirectory()
        let idle = try ChildProcess(Self.mpc, ["-p", String(port), "idle", "player"], environment: ProcessInfo.processInfo.environment, stdout: output.path + "/out")
        #expect(await offPool { server.server.waitForIdleClients(1) })
        _ = try session.performAtOnce(.pause)
        #expect(try await idle.exits(within: 30))
        #expect(ChildProcess.code(idle.waitUntilExit()) == 0)
        #expect(try String(contentsOfFile: output.path + "/out", encoding: .utf8) == "player\n")
    }

    /// The keys of each answer in order (values differ: paths, times, ids),
    /// or an ACK's code, index and command. Left out, as docs/PROTOCOL.md
    /// says: `Last-Modified`, `Format`, `bitrate` and `audio` (not known
    /// without decoding), and `stats`' `playtime`.
    static func shape(_ command: String, _ lines: [String]) -> [String] {
        let left: Set<String> = ["Last-Modified", "Format", "bitrate", "audio"]
        return lines.compactMap { line -> String? in
            if line.hasPrefix("ACK ") { return line.components(separatedBy: "} ").first.map { $0 + "}" } }
            if line == "OK" || line == "list_OK" { return line }
            guard let colon = line.range(of: ": ") else { return line }
            let key = String(line[..<colon.lowerBound])
            if left.contains(key) || (command == "stats" && key == "playtime") { return nil }
            return key
        }
    }

    static let script = [
        "single 0", "status", "currentsong", "play 1", "status", "currentsong", "pause 1", "status", "setvol 50", "getvol",
        "playlistinfo", "playlistinfo 1", "playlistid 1", "plchanges 0", "plchangesposid 0", "list artist", #"list album artist "Artist A""#,
        #"find artist "Artist A""#, #"search title "song""#, #"find "(Artist == 'Artist B')""#, #"count artist "Artist A""#, "listall", "lsinfo",
        "outputs", "replay_gain_status", "stats", "nosuchcommand", "play 99", "playid 999", "seek 99 1", "repeat 1", "random 1", "random 0",
        "command_list_ok_begin\nping\nstatus\nnosuchcommand\ncommand_list_end", "stop", "status",
    ]

    @Test func answersHaveTheShapeOfMPDs() async throws {
        let music = try await MusicFolder.make()
        let folder = music.folder.path
        // A real MPD on a free loopback port, with a software mixer (so it has a volume).
        let port = try Self.freePort()
        try """
            music_directory "\(folder)/music"
            playlist_directory "\(folder)"
            db_file "\(folder)/database"
            log_file "\(folder)/mpd.log"
            bind_to_address "127.0.0.1"
            bind_to_address "\(folder)/mpd.socket"
            port "\(port)"
            audio_output {
                type "null"
                name "null"
                mixer_type "software"
            }
            """.write(toFile: folder + "/mpd.conf", atomically: true, encoding: .utf8)
        let mpd = try ChildProcess(Self.mpd, ["--no-daemon", folder + "/mpd.conf"], environment: ProcessInfo.processInfo.environment, stderr: folder + "/mpd.stderr")
        defer {
            kill(mpd.pid, SIGTERM)
            _ = mpd.waitUntilExit()
        }
        // Bound in the order written: the socket file says the port listens too.
        #expect(try await Wait.forFile(folder + "/mpd.socket"))
        let real = try await MPDTestClient.connect(port: port)
        #expect(real.greeting.hasPrefix("OK MPD 0.23"))
        // The database read (MPD may have read it at start already: an
        // update that finds nothing new says no `database`, so this waits,
        // as `mpc --wait update` does, until no update job is left), then
        // the whole folder queued.
        let updated = await offPool { () -> Bool in
            guard MPDTestClient.value("updating_db", in: real.blockingCall("update")) != nil else { return false }
            while MPDTestClient.value("updating_db", in: real.blockingCall("status")) != nil {
                guard real.blockingCall("idle update").last == "OK" else { return false }
            }
            return true
        }
        #expect(updated)
        #expect(await real.call("add /") == ["OK"])

        let ours = try MPDServerUnderTest(feed: music.feed)
        let client = try await ours.client()
        #expect(client.greeting == real.greeting)
        for command in Self.script {
            let theirs = await real.call(command)
            let mine = await client.call(command)
            let name = String(command.prefix { $0 != " " && $0 != "\n" })
            #expect(Self.shape(name, mine) == Self.shape(name, theirs), "\(command)\nmediaplay: \(mine)\nMPD: \(theirs)")
        }
    }

    /// A loopback port nobody listens on now (MPD takes it right after).
    static func freePort() throws -> UInt16 {
        let probe = try MPDAddress(parsing: "127.0.0.1:0")
        _ = probe
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { throw MPDTestFailure("cannot bind a loopback port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// ncmpcpp in a terminal (tmux): its playlist screen lists the feed, Enter
/// plays the item under the cursor, p pauses; the session agrees.
@Suite struct NcmpcppTests {
    @Test func ncmpcppListsPlaysAndPauses() async throws {
        let music = try await MusicFolder.make()
        let server = try MPDServerUnderTest(feed: music.feed)
        let session = server.session
        let terminal = try await TerminalSession(columns: 120, rows: 30, ["/usr/bin/ncmpcpp", "-h", "127.0.0.1", "-p", String(server.port)], environment: [:])
        let listed = await terminal.waitForScreen(timeout: 30) { screen in
            ["Song One", "Song Two", "Song Three"].allSatisfy { title in screen.contains { $0.contains(title) } }
        }
        #expect(listed.matched, "\(listed.screen.joined(separator: "\n"))")
        await terminal.send("Down")
        await terminal.send("Enter")
        #expect(await eventually(session) { session.currentStatus()?.state == .playing })
        #expect(session.currentStatus()?.id == "song2")
        // ncmpcpp's p sends play or pause by its own idea of the state: it
        // must have heard of the play first (a busy machine delays its idle
        // update, and a p pressed before it was sent as play).
        let playing = await terminal.waitForScreen(timeout: 30) { screen in screen.contains { $0.contains("Playing") && $0.contains("Song Two") } }
        #expect(playing.matched, "\(playing.screen.joined(separator: "\n"))")
        await terminal.send("p")
        #expect(await eventually(session) { session.currentStatus()?.state == .paused })
        let shown = await terminal.waitForScreen(timeout: 30) { screen in screen.contains { $0.contains("Paused") && $0.contains("Song Two") } }
        #expect(shown.matched, "\(shown.screen.joined(separator: "\n"))")
    }
}
