import Foundation
import MediaFeed
import MediaMPD
import Testing
import TestKit

/// python-mpd2 (Debian's python3-mpd), the library most MPD scripts use,
/// against the server: `status()`, `currentsong()` and `playlistinfo()`
/// come back with MPD's fields, and an unknown command raises its
/// `CommandError` with MPD's `[5@0]`.
@Suite struct PythonMPDTests {
    static let script = """
        import json, sys
        import mpd
        client = mpd.MPDClient()
        client.timeout = 30
        client.connect("127.0.0.1", int(sys.argv[1]))
        client.play(1)
        status = client.status()
        song = client.currentsong()
        songs = client.playlistinfo()
        client.add_command("nosuchcommand", mpd.MPDClient._parse_nothing)
        try:
            client.nosuchcommand()
            error = None
        except mpd.CommandError as failure:
            error = str(failure)
        client.close()
        print(json.dumps({"status": status, "song": song, "songs": songs, "error": error}))
        """

    @Test func pythonMPD2ReadsMPDsFields() async throws {
        let folder = try TemporaryDirectory()
        let server = try MPDServerUnderTest(feed: try fakeFeed(folder))
        let run = try await Fixtures.run("/usr/bin/python3", ["-c", Self.script, String(server.port)])
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
        let status = try #require(answer["status"] as? [String: Any])
        for key in ["volume", "repeat", "random", "single", "consume", "playlist", "playlistlength", "state", "song", "songid"] {
            #expect(status[key] != nil, "status() lacks \(key): \(status)")
        }
        #expect(status["state"] as? String == "play" && status["song"] as? String == "1" && status["playlistlength"] as? String == "3")
        let song = try #require(answer["song"] as? [String: Any])
        #expect(song["file"] as? String == folder.path + "/item2.mp3" && song["pos"] as? String == "1" && song["id"] != nil, "\(song)")
        #expect(song["title"] as? String == "Item 2")
        let songs = try #require(answer["songs"] as? [[String: Any]])
        #expect(songs.map { $0["pos"] as? String } == ["0", "1", "2"])
        #expect((answer["error"] as? String)?.hasPrefix("[5@0] {} unknown command \"nosuchcommand\"") == true, "\(answer["error"] ?? "none")")
    }
}
