import Foundation
import Testing
import TestKit

/// Exit codes from sysexits, and one-line errors that name the fix.
@Suite struct ExitCodeTests {
    @Test func badRecordsStillListWithExitZero() async throws {
        let folder = try TemporaryDirectory()
        try folder.write("feed.json", """
            {"items": [
              {"type": 1, "title": "Good song", "url": "https://e.org/a.mp3"},
              {"type": "film", "title": "Stringly typed", "url": "https://e.org/b.mp4"},
              {"type": 2, "title": "Good film", "url": "https://e.org/c.mp4"}
            ]}
            """)
        let result = try await Mediaplay.run(["list", "--feed", folder.path + "/feed.json"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Good song"))
        #expect(result.stdout.contains("Good film"))
        #expect(result.stdout.contains(#"invalid: unknown type "film" (expected "image", "audio" or "video", or 0, 1, 2)"#))
    }

    @Test func truncatedFeedIsExit65WithLineAndColumn() async throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("broken.json", "{\"items\": [\n  {\"type\": 1, \"url\": \"https://e.org/a.mp3\"},\n  {\"type\": 2,")
        let result = try await Mediaplay.run(["list", "--feed", path])
        #expect(result.status == 65)
        #expect(result.stdout == "")
        #expect(result.stderr == "mediaplay: \(path):3:14: unexpected end of file inside an object; expected '\"' or '}'\n")
    }

    @Test func wrongShapeIsExit65() async throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("shape.json", "{\"title\": \"no items\"}")
        let result = try await Mediaplay.run(["list", "--feed", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):1:1: the feed object has no \"items\" array"))
    }

    @Test func missingFeedIsExit66() async throws {
        let result = try await Mediaplay.run(["list", "--feed", "/nonexistent/feed.json"])
        #expect(result.status == 66)
        #expect(result.stderr == "mediaplay: feed not found: /nonexistent/feed.json (check the path, or pass --feed PATH)\n")
        let folder = try TemporaryDirectory()
        // A folder is a feed of its media files: an empty one lists nothing.
        let directory = try await Mediaplay.run(["list", "--feed", folder.path])
        #expect(directory.status == 0, "\(directory.stderr)")
        #expect(directory.stdout.contains("· 0 items"))
    }

    @Test func unreadableFeedIsExit66() async throws {
        // A file that exists but cannot be read, even by root (CI runs as root,
        // so a chmod 000 file would be readable): reading /proc/self/mem at
        // offset 0 fails with EIO.
        let result = try await Mediaplay.run(["list", "--feed", "/proc/self/mem"])
        #expect(result.status == 66)
        #expect(result.stderr == "mediaplay: cannot read feed /proc/self/mem: Input/output error (check its permissions)\n")
    }

    @Test func usageErrorsAreExit64() async throws {
        #expect(try await Mediaplay.run(["list", "--no-such-option"]).status == 64)
        #expect(try await Mediaplay.run(["no-such-command"]).status == 64)
        #expect(try await Mediaplay.run(["list", "--feed", "ftp://example.org/feed.json"]).status == 64)
    }

    @Test func helpAndVersion() async throws {
        let version = try await Mediaplay.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        let help = try await Mediaplay.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Examples:"))
        let listHelp = try await Mediaplay.run(["list", "--help"])
        #expect(listHelp.stdout.contains("--feed"))
        #expect(listHelp.stdout.contains("--cache-dir"))
        #expect(listHelp.stdout.contains("--runtime-dir"))
        #expect(listHelp.stdout.contains("--json"))
    }

    @Test func completionScripts() async throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try await Mediaplay.run(["--generate-completion-script", shell])
            #expect(result.status == 0)
            #expect(result.stdout.contains("list"), "\(shell) completion names the list command")
        }
    }
}
