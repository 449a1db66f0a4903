import Foundation
import MediaFeed
import MediaModel
import MediaMPD
import MediaSession
import Testing
import TestKit

/// The server over a real TCP connection, its commands carried out by a
/// session (fake engine): what a client is told agrees with the session.
@Suite struct MPDServerTests {
    let folder: TemporaryDirectory
    let feed: Feed

    init() throws {
        folder = try TemporaryDirectory()
        feed = try fakeFeed(folder)
    }

    @Test func greetsAndAnswersStatusInMPDsOrder() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let client = try await server.client()
        #expect(client.greeting == "OK MPD \(MPDServer.protocolVersion)")
        let status = await client.call("status")
        #expect(MPDTestClient.pairs(status).map(\.0) == ["volume", "repeat", "random", "single", "consume", "partition", "playlist", "playlistlength", "mixrampdb", "state"])
        #expect(MPDTestClient.value("state", in: status) == "stop")
        #expect(MPDTestClient.value("playlistlength", in: status) == "3")
        #expect(status.last == "OK")
    }

    @Test func controlsReachTheSession() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let session = server.session
        let client = try await server.client()
        // Playing on after an item (the session starts with autoplay off here): single 0.
        #expect(await client.call("single 0") == ["OK"])
        #expect(session.playlistMode.autoplay)
        #expect(await client.call("play 1") == ["OK"])
        #expect(session.currentStatus()?.id == "item2")
        #expect(session.currentStatus()?.state == .playing)
        let playing = await client.call("status")
        #expect(MPDTestClient.value("state", in: playing) == "play")
        #expect(MPDTestClient.value("song", in: playing) == "1")
        let ids = MPDTestClient.pairs(await client.call("playlistinfo")).filter { $0.0 == "Id" }.map(\.1)
        #expect(ids.count == 3 && Set(ids).count == 3)
        #expect(MPDTestClient.value("songid", in: playing) == ids[1])
        #expect(MPDTestClient.value("nextsongid", in: playing) == ids[2])
        #expect(MPDTestClient.value("elapsed", in: playing)?.split(separator: ".").last?.count == 3)

        #expect(await client.call("pause 1") == ["OK"])
        #expect(session.currentStatus()?.state == .paused)
        #expect(await client.call("pause") == ["OK"])
        #expect(session.currentStatus()?.state == .playing)
        #expect(await client.call("seekcur 30") == ["OK"])
        #expect(session.currentStatus()?.position == 30)
        #expect(await client.call("seekcur -10") == ["OK"])
        #expect(session.currentStatus()?.position == 20)
        #expect(await client.call("setvol 40") == ["OK"])
        #expect(session.audioSettings.volume == 40)
        #expect(await client.call("getvol") == ["volume: 40", "OK"])
        #expect(await client.call("volume -5") == ["OK"])
        #expect(session.audioSettings.volume == 35)
        #expect(await client.call("random 1") == ["OK"])
        #expect(session.playlistMode.shuffle)
        #expect(await client.call("repeat 1") == ["OK"])
        #expect(session.playlistMode.repeat == .all)
        #expect(await client.call("single 1") == ["OK"])
        #expect(session.playlistMode.repeat == .one)
        #expect(await client.call("playid \(ids[0])") == ["OK"])
        #expect(session.currentStatus()?.id == "item1")
        #expect(await client.call("stop") == ["OK"])
        #expect(MPDTestClient.value("state", in: await client.call("status")) == "stop")
    }

    @Test func refusalsAreMPDsACKs() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let client = try await server.client()
        #expect(await client.call("foo") == [#"ACK [5@0] {} unknown command "foo""#])
        #expect(await client.call("play 7") == ["ACK [2@0] {play} Bad song index"])
        #expect(await client.call("playid 999") == ["ACK [50@0] {playid} No such song"])
        #expect(await client.call("play x") == ["ACK [2@0] {play} Integer expected: x"])
        #expect(await client.call(#"find artist "unclosed"#) == [#"ACK [2@0] {} Missing closing '"'"#])
        #expect(await client.call("crossfade 0") == ["OK"])
        #expect(await client.call("crossfade 5").first?.hasPrefix("ACK [2@0] {crossfade}") == true)
        #expect(await client.call("consume 1").first?.hasPrefix("ACK [2@0] {consume}") == true)
        #expect(await client.call("delete 0").first?.hasPrefix("ACK [2@0] {delete}") == true)
        // Still answering after every refusal.
        #expect(await client.call("ping") == ["OK"])
    }

    @Test func commandListsAnswerInOrderAndStopAtTheFirstRefusal() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let client = try await server.client()
        let okList = await offPool { () -> [String] in
            client.send("command_list_ok_begin\nping\nsetvol 20\ngetvol\ncommand_list_end\n")
            return client.answer()
        }
        #expect(okList == ["list_OK", "list_OK", "volume: 20", "list_OK", "OK"])
        let failing = await offPool { () -> [String] in
            client.send("command_list_begin\nping\nsetvol 30\nnosuch\nsetvol 90\ncommand_list_end\n")
            return client.answer()
        }
        #expect(failing == [#"ACK [5@2] {} unknown command "nosuch""#])
        // The command after the refusal did not run.
        #expect(server.session.audioSettings.volume == 30)
    }

    @Test func withAPasswordOnlyTheGreetingCommandsWork() async throws {
        let server = try MPDServerUnderTest(feed: feed, password: "sesame")
        let client = try await server.client()
        #expect(await client.call("status") == [#"ACK [4@0] {status} you don't have permission for "status""#])
        #expect(await client.call("play 0") == [#"ACK [4@0] {play} you don't have permission for "play""#])
        #expect(server.session.currentStatus() == nil)
        #expect(await client.call("ping") == ["OK"])
        #expect(await client.call("commands").contains("command: password"))
        #expect(await client.call("commands").contains("command: status") == false)
        #expect(await client.call("password wrong") == ["ACK [3@0] {password} incorrect password"])
        #expect(await client.call("password sesame") == ["OK"])
        #expect(MPDTestClient.value("state", in: await client.call("status")) == "stop")
    }

    @Test func aLineOver64KiBEndsTheConnection() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let client = try await server.client()
        let lines = await offPool { () -> [String] in
            client.send("find title " + String(repeating: "x", count: 70 * 1024) + "\n")
            var lines: [String] = []
            while let line = client.line() { lines.append(line) }
            return lines
        }
        #expect(lines.count == 1 && lines[0].hasPrefix("ACK [2@0]"))
        // The server goes on for others.
        #expect(await (try server.client()).call("ping") == ["OK"])
    }

    @Test func aCommandListOver10000LinesEndsTheConnection() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let client = try await server.client()
        let lines = await offPool { () -> [String] in
            client.send("command_list_begin\n" + String(repeating: "setvol 10\n", count: 10_001))
            var lines: [String] = []
            while let line = client.line() { lines.append(line) }
            return lines
        }
        #expect(lines.count == 1 && lines[0].hasPrefix("ACK [2@0] {command_list_begin}"))
        // None of it ran.
        #expect(server.session.audioSettings.volume == 100)
    }

    @Test func clientsPastTheLimitAreRefusedWithOneLine() async throws {
        let server = try MPDServerUnderTest(feed: feed, maximumClients: 2)
        let first = try await server.client()
        let second = try await server.client()
        #expect(first.greeting.hasPrefix("OK MPD") && second.greeting.hasPrefix("OK MPD"))
        let third = try await server.client()
        #expect(third.greeting.hasPrefix("ACK [52@0] {} too many clients"))
        #expect(await offPool { third.line() } == nil)
        // A place freed is taken again (the server counts the first's end once its thread saw it).
        first.send("close\n")
        #expect(await offPool { first.line() } == nil)
        #expect(await second.call("ping") == ["OK"])
    }

    /// A pause made by another front end (here the session itself, as the
    /// CLI's socket or MPRIS would) wakes every client waiting in idle.
    @Test func fiftyIdleClientsAllHearAPause() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let controller = try await server.client()
        #expect(await controller.call("play 0") == ["OK"])
        var waiting: [MPDTestClient] = []
        for _ in 0..<50 { waiting.append(try await server.client()) }
        // Each is told of changes since it connected, so its idle cannot miss the pause.
        for client in waiting { client.send("idle player\n") }
        _ = try server.session.performAtOnce(.pause)
        #expect(server.session.currentStatus()?.state == .paused)
        for client in waiting {
            #expect(await offPool { client.answer() } == ["changed: player", "OK"])
        }
    }

    @Test func noidleEndsAnIdleWithWhatChanged() async throws {
        let server = try MPDServerUnderTest(feed: feed)
        let client = try await server.client()
        client.send("idle mixer\n")
        #expect(await client.call("noidle") == ["OK"])
        #expect(await client.call("idle nothing") == ["ACK [2@0] {idle} Unrecognized idle event: nothing"])
        let other = try await server.client()
        #expect(await other.call("setvol 55") == ["OK"])
        // Told once the session's settings event reaches the server, whether before this idle or during it.
        #expect(await client.call("idle mixer options") == ["changed: mixer", "OK"])
    }

    /// Local files only behind a password: else any user of this machine
    /// could add the owner's files and read them back with albumart.
    @Test func theQueueGrowsByAddedFilesWithStableIds() async throws {
        let extra = try folder.write("extra.mp3", "not decoded")
        let open = try MPDServerUnderTest(feed: feed)
        let stranger = try await open.client()
        #expect(await stranger.call("add \(MPDRequest.quoted(extra))").first?.hasPrefix("ACK [4@0] {add} Access denied") == true)
        #expect(await stranger.call("add file://\(extra)").first?.hasPrefix("ACK [4@0] {add}") == true)

        let server = try MPDServerUnderTest(feed: feed, password: "secret")
        let client = try await server.client()
        #expect(await client.call("password secret") == ["OK"])
        let before = MPDTestClient.value("playlist", in: await client.call("status"))
        let added = await client.call("addid \(MPDRequest.quoted(extra))")
        #expect(added.count == 2 && added[0].hasPrefix("Id: "))
        let status = await client.call("status")
        #expect(MPDTestClient.value("playlistlength", in: status) == "4")
        #expect(MPDTestClient.value("playlist", in: status) != before)
        let info = await client.call("playlistinfo 3")
        #expect(MPDTestClient.value("file", in: info) == extra)
        #expect("Id: " + (MPDTestClient.value("Id", in: info) ?? "") == added[0])
        #expect(await client.call("add /no/such/file.mp3").first?.hasPrefix("ACK [50@0] {add}") == true)
        let changes = await client.call("plchangesposid \(before ?? "0")")
        #expect(MPDTestClient.pairs(changes).filter { $0.0 == "cpos" }.count == 4)
        #expect(await client.call("plchanges \(MPDTestClient.value("playlist", in: status) ?? "")") == ["OK"])
    }

    @Test func albumartSendsTheItemsPictureInChunks() async throws {
        let picture = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let path = folder.path + "/cover.png"
        try Data(picture).write(to: URL(fileURLWithPath: path))
        var withCover = feed
        withCover.items[0].thumbnail = .file(path)
        let server = try MPDServerUnderTest(feed: withCover)
        let client = try await server.client()
        let file = try #require(MPDTestClient.value("file", in: await client.call("playlistinfo 0")))
        var received: [UInt8] = []
        while received.count < picture.count {
            let offset = received.count
            let chunk = await offPool { () -> (size: String?, bytes: [UInt8], end: String?) in
                client.send("albumart \(MPDRequest.quoted(file)) \(offset)\n")
                let size = client.line()
                guard let length = client.line().flatMap({ $0.hasPrefix("binary: ") ? Int($0.dropFirst(8)) : nil }) else { return (size, [], nil) }
                let bytes = client.bytes(length)
                _ = client.line()
                return (size, bytes, client.line())
            }
            #expect(chunk.size == "size: \(picture.count)")
            #expect(chunk.end == "OK")
            #expect(!chunk.bytes.isEmpty && chunk.bytes.count <= 8192)
            guard !chunk.bytes.isEmpty else { break }
            received += chunk.bytes
        }
        #expect(received == picture)
        // An item without a picture, and readpicture (pictures inside files are not taken out).
        let other = try #require(MPDTestClient.value("file", in: await client.call("playlistinfo 1")))
        #expect(await client.call("albumart \(MPDRequest.quoted(other)) 0") == ["ACK [50@0] {albumart} No file exists"])
        #expect(await client.call("readpicture \(MPDRequest.quoted(file)) 0") == ["OK"])
    }

    /// A client that sends commands but reads none of the answers is
    /// dropped once its answers stop moving: they wait in the kernel's
    /// socket buffers only, never in the server.
    @Test func aClientThatReadsNothingIsDropped() async throws {
        let server = try MPDServerUnderTest(feed: feed, writeTimeout: 1)
        let port = server.port
        let client = try await offPool { try MPDTestClient(port: port, receiveBuffer: 16 * 1024) }
        // About 5 MB of answers asked for (far more than the server's send
        // buffer and this client's receive buffer hold), none read while asking.
        let requests = String(repeating: "playlistinfo\n", count: 20_000)
        await offPool { client.send(requests) }
        // The server says when it gives up on the client (a second without progress).
        var heard = false
        for await line in server.logged where line.contains("dropped a client") {
            heard = true
            break
        }
        #expect(heard)
        // Read what the kernel held, up to the end the server's close makes.
        let lines = await offPool { () -> Int in
            var count = 0
            while client.line() != nil { count += 1 }
            return count
        }
        #expect(lines < 20_000 * 13)
        #expect(server.server.clientCount == 0)
        #expect(await (try server.client()).call("ping") == ["OK"])
    }
}

/// What a client may hold: no command list before the password, a list's
/// bytes bounded (MPD's max_command_list_size), and a silent client closed.
@Suite struct MPDClientBoundsTests {
    static let feed = Feed(title: "t", items: [FeedItem(position: 1, id: "a", title: "A", kind: .audio, source: .remote(URL(string: "http://media.invalid/a.mp3")!))])

    @Test func noCommandListBeforeThePassword() async throws {
        let server = try MPDServerUnderTest(feed: Self.feed, password: "secret")
        let client = try await server.client()
        #expect(await client.call("command_list_begin") == [#"ACK [4@0] {command_list_begin} you don't have permission for "command_list_begin""#])
        #expect(await client.call("password secret") == ["OK"])
        client.send("command_list_begin\nping\n")
        #expect(await client.call("command_list_end") == ["OK"])
    }

    @Test func aCommandListOverTwoMebibytesIsDropped() async throws {
        let server = try MPDServerUnderTest(feed: Self.feed)
        let client = try await server.client()
        let line = "ping " + String(repeating: "x", count: 60_000) + "\n"
        client.send("command_list_begin\n")
        // 36 lines of 60 kB: past 2 MiB, well under 10,000 commands.
        await offPool { for _ in 0..<36 { client.send(line) } }
        let answer = await offPool { client.answer() }
        #expect(answer.first?.hasPrefix("ACK [2@0] {command_list_begin} command list too long") == true, "\(answer)")
        #expect(await offPool { client.line() } == nil, "the connection is closed")
    }

    @Test func aSilentClientIsClosedButAnIdleOneStays() async throws {
        let server = try MPDServerUnderTest(feed: Self.feed, readTimeout: 1)
        // Idle at once on one thread (a busy machine can take longer than the
        // second between the greeting and a later send), and counted idle.
        let port = server.port
        let waiting = try await offPool { () throws -> MPDTestClient in
            let client = try MPDTestClient(port: port, host: "127.0.0.1")
            client.send("idle player\n")
            return client
        }
        let inner = server.server
        #expect(await offPool { inner.waitForIdleClients(1) })
        let silent = try await server.client()
        // The server closes the silent one after its timeout: its end of stream is the event.
        #expect(await offPool { silent.line() } == nil)
        #expect(await waiting.call("noidle") == ["OK"], "a client in idle is not silent")
    }
}
