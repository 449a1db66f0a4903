import Foundation
import MediaControl
import Testing
import InProcessRunner
import TestKit

/// `mediaplay list`, run as a user would run it: the built binary, its stdout,
/// stderr and exit code.
@Suite struct ListCommandTests {
    static let goldenFeed = """
        {"title": "Golden Feed", "items": [
          {"type": 2, "id": "bbb", "title": "Big Buck Bunny", "url": "https://example.org/BigBuckBunny.mp4"},
          {"type": 1, "title": "A song whose title is far too long to fit in an eighty column terminal table", "url": "https://example.org/song.mp3"},
          {"type": 0, "title": "Local picture", "url": "picture.png"},
          {"type": 7, "title": "Broken record", "url": "https://example.org/x.bin"},
          {"type": 1, "title": "日本語のタイトル", "url": "https://example.org/jp.mp3"},
          {"type": 2, "title": "Line\\nbreak\\ttitle", "url": "https://example.org/lb.mp4"}
        ]}
        """

    private func goldenFolder() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        try folder.write("golden.json", Self.goldenFeed)
        try folder.write("picture.png", byteCount: 2048)
        return folder
    }

    @Test func tableAtEightyColumns() async throws {
        let folder = try goldenFolder()
        let result = try await Mediaplay.runInProcess(["list", "--feed", folder.path + "/golden.json"], environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == """
            Golden Feed · 6 items (1 invalid)
            #  KIND   TITLE                          STATE                              SIZE
            1  video  Big Buck Bunny                 not downloaded
            2  audio  A song whose title is far to…  not downloaded
            3  image  Local picture                  local file                      2.0 KiB
            4  ?      Broken record                  invalid: unknown type 7 (expe…
            5  audio  日本語のタイトル               not downloaded
            6  video  Line break title               not downloaded

            """)
    }

    @Test func noLineIsWiderThanTheTerminal() async throws {
        let folder = try goldenFolder()
        for width in [40, 60, 100, 200] {
            let result = try await Mediaplay.runInProcess(["list", "--feed", folder.path + "/golden.json"], environment: ["COLUMNS": "\(width)"])
            #expect(result.status == 0)
            for line in result.stdout.split(separator: "\n") {
                #expect(Self.columns(String(line)) <= width, "COLUMNS=\(width): \(line)")
            }
        }
    }

    @Test func noColorsOffATerminal() async throws {
        let folder = try goldenFolder()
        let result = try await Mediaplay.runInProcess(["list", "--feed", folder.path + "/golden.json"])
        #expect(!result.stdout.contains("\u{1B}"))
    }

    @Test func jsonRoundTrips() async throws {
        let folder = try goldenFolder()
        let result = try await Mediaplay.runInProcess(["list", "--json", "--feed", folder.path + "/golden.json"])
        #expect(result.status == 0)
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        #expect(document.schema == "mediaplay.list/2")
        #expect(document.feed.title == "Golden Feed")
        #expect(document.feed.source == folder.path + "/golden.json")
        #expect(document.items.map(\.position) == Array(1...6))
        #expect(document.items.map(\.kind) == ["video", "audio", "image", nil, "audio", "video"])
        #expect(document.items.map(\.state) == ["not-downloaded", "not-downloaded", "local", "invalid", "not-downloaded", "not-downloaded"])
        #expect(document.items[0].id == "bbb")
        #expect(document.items[1].title == "A song whose title is far too long to fit in an eighty column terminal table")
        #expect(document.items[2].size == 2048)
        #expect(document.items[2].url == folder.path + "/picture.png")
        #expect(document.items[3].error == "unknown type 7 (expected 0 image, 1 audio, 2 video)")
        #expect(document.items[3].line == 5)
        #expect(document.items[5].title == "Line\nbreak\ttitle")  // JSON keeps the text whole

        // Every key is present, null when unknown, at every level.
        let raw = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(Set(raw.keys) == ["schema", "feed", "items"])
        #expect(Set((raw["feed"] as! [String: Any]).keys) == ["title", "source", "repaired"])
        #expect((raw["feed"] as! [String: Any])["repaired"] as? [String] == [], "read as it is: nothing mended")
        for item in raw["items"] as! [[String: Any]] {
            #expect(Set(item.keys) == ["position", "id", "kind", "title", "url", "description", "thumbnail", "state", "size", "received", "error", "line", "playback", "media", "duration", "published", "played", "new", "chapters", "resumeAt"])
        }
    }

    @Test func missingLocalFileIsShownAsSuch() async throws {
        let folder = try TemporaryDirectory()
        try folder.write("f.json", #"[{"type": 0, "title": "Gone", "url": "gone.png"}]"#)
        let result = try await Mediaplay.runInProcess(["list", "--json", "--feed", folder.path + "/f.json"])
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        #expect(document.items[0].state == "missing")
        #expect(document.items[0].error == "no readable file at \(folder.path)/gone.png")
    }

    @Test func emptyFeedIsFriendly() async throws {
        let folder = try TemporaryDirectory()
        try folder.write("empty.json", #"{"title": "Nothing here", "items": []}"#)
        let result = try await Mediaplay.runInProcess(["list", "--feed", folder.path + "/empty.json"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Nothing here · 0 items"))
        #expect(result.stdout.contains("Nothing to list yet"))
        let json = try await Mediaplay.runInProcess(["list", "--json", "--feed", folder.path + "/empty.json"])
        #expect(try JSONDecoder().decode(ListJSON.self, from: Data(json.stdout.utf8)).items.isEmpty)
    }

    /// list asks a running background player what it plays; one that
    /// accepts the connection and never answers must not hold list up.
    @Test func aBackgroundPlayerThatDoesNotAnswerIsLeftOut() async throws {
        let folder = try TemporaryDirectory()
        let picture = try folder.write("picture.png", byteCount: 2048)
        try folder.write("f.json", #"[{"type": 0, "title": "Picture", "url": "\#(picture)"}]"#)
        let paths = ControlPaths(runtimeDirectory: folder.path + "/run/mediaplay")
        try FileManager.default.createDirectory(atPath: paths.runtimeDirectory, withIntermediateDirectories: true)
        let silent = try UnixSocket.listening(at: paths.socket)
        let running = try Mediaplay.start(["list", "--feed", folder.path + "/f.json"], environment: ["XDG_RUNTIME_DIR": folder.path + "/run"])
        // A guard against hanging the suite, not a speed check.
        if try await !running.exits(within: 10) { running.kill(SIGKILL) }
        let result = try await running.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("local file") && !result.stdout.contains("paused"), "\(result.stdout)")
        withExtendedLifetime(silent) {}
    }

    @Test func bundledFeedByDefault() async throws {
        let result = try await Mediaplay.runInProcess(["list", "--json"])
        #expect(result.status == 0)
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8))
        #expect(document.feed.source.hasSuffix("/media.json"))
        #expect(document.items.count >= 15)
        // No arguments at all: off a terminal, mediaplay prints the list.
        let bare = try await Mediaplay.runInProcess([])
        #expect(bare.status == 0)
        #expect(bare.stdout.contains("Big Buck Bunny"))
    }

    @Test func feedFromTheEnvironment() async throws {
        let folder = try goldenFolder()
        let result = try await Mediaplay.runInProcess(["list", "--json"], environment: ["MEDIAPLAY_FEED": folder.path + "/golden.json"])
        #expect(try JSONDecoder().decode(ListJSON.self, from: Data(result.stdout.utf8)).feed.title == "Golden Feed")
        // --feed beats the environment.
        try folder.write("other.json", #"{"title": "Other", "items": []}"#)
        let other = try await Mediaplay.runInProcess(["list", "--json", "--feed", folder.path + "/other.json"],
                                      environment: ["MEDIAPLAY_FEED": folder.path + "/golden.json"])
        #expect(try JSONDecoder().decode(ListJSON.self, from: Data(other.stdout.utf8)).feed.title == "Other")
    }

    /// Display columns of a line, for the width checks (wide CJK counts 2).
    static func columns(_ line: String) -> Int {
        line.unicodeScalars.reduce(0) { sum, scalar in
            sum + ((0x3000...0x9FFF).contains(scalar.value) || (0xFF00...0xFF60).contains(scalar.value) ? 2 : 1)
        }
    }
}
