import Foundation
import Testing
import InProcessRunner
import TestKit

/// A newcomer's first minutes: the bundled media play offline, the README
/// is short and its quick start works, and help reads whole at 80 columns.
@Suite struct FirstRunTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// `mediaplay play 1` with the bundled feed plays the tune that ships
    /// in Media/, sample for sample as ffmpeg decodes it (no network).
    @Test func theBundledTunePlaysOffline() async throws {
        let folder = try TemporaryDirectory()
        let out = folder.path + "/tune.wav"
        let played = try await Mediaplay.runInProcess(["play", "1", "--audio-out", out, "--untimed"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(Self.root + "/Media/tune.opus")))
        // The video and the pictures decode too (their frames as ffmpeg's).
        let frames = folder.path + "/zoom.txt"
        let video = try await Mediaplay.runInProcess(["play", "2", "--no-audio", "--video-out", frames, "--untimed"])
        #expect(video.status == 0, "\(video.stderr)")
        let lines = try String(contentsOfFile: frames, encoding: .utf8).split(separator: "\n")
        #expect(lines.map { String($0.split(separator: " ")[1]) } == (try await Fixtures.referenceFrameHashes(Self.root + "/Media/zoom.mp4")))
    }

    /// Under 12,000 characters, no paragraph or table row over 400, and
    /// nothing outside the repository named; every docs link is there.
    @Test func theReadmeIsShortAndSelfContained() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        #expect(readme.count < 12_000, "\(readme.count) characters")
        var blocks: [String] = []
        var inCode = false
        var current = ""
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle() }
            if line.hasPrefix("|") {
                blocks.append(String(line))
            } else if line.trimmingCharacters(in: .whitespaces).isEmpty && !inCode {
                blocks.append(current)
                current = ""
            } else {
                current += line + "\n"
            }
        }
        blocks.append(current)
        let longest = blocks.map(\.count).max() ?? 0
        #expect(longest <= 400, "a paragraph or row of \(longest) characters")
        #expect(!readme.contains("../"), "nothing outside the repository")
        for link in readme.matches(of: /\]\(([^)#]+)\)/) where !link.1.contains("://") {
            #expect(FileManager.default.fileExists(atPath: Self.root + "/" + link.1), "README links to \(link.1)")
        }
    }

    /// The README's quick start, run against the shipped media: its feed
    /// example (its files stood in for by the tune and a picture) lists
    /// and plays, and a folder and a file play as it says.
    @Test func theReadmeQuickStartWorks() async throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        guard let block = readme.firstMatch(of: /```json\n([\s\S]*?)```/) else {
            Issue.record("the README has no JSON feed example")
            return
        }
        let folder = try TemporaryDirectory()
        let feed = try folder.write("my-feed.json", String(block.1))
        // Its local files, from what ships.
        let records = try JSONSerialization.jsonObject(with: Data(String(block.1).utf8)) as? [[String: String]] ?? []
        #expect(records.count >= 2)
        for record in records {
            guard let url = record["url"], !url.contains("://") else { continue }
            let shipped = record["type"] == "image" ? "/Media/pattern.jpg" : "/Media/tune.opus"
            try FileManager.default.createDirectory(atPath: ((folder.path + "/" + url) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.root + shipped, toPath: folder.path + "/" + url)
        }
        let list = try await Mediaplay.runInProcess(["list", "--json", "--feed", feed])
        #expect(list.status == 0, "\(list.stderr)")
        let document = try JSONDecoder().decode(ListJSON.self, from: Data(list.stdout.utf8))
        #expect(document.items.count == records.count)
        #expect(document.items.allSatisfy { $0.state != "invalid" }, "\(list.stdout)")
        let out = folder.path + "/out.wav"
        let played = try await Mediaplay.runInProcess(["play", "1", "--feed", feed, "--audio-out", out, "--untimed"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(Self.root + "/Media/tune.opus")))
        // "mediaplay play song.mp3", "mediaplay play ~/Music".
        #expect(readme.contains("mediaplay play ~/Music") && readme.contains("mediaplay play song.mp3"))
        let music = folder.path + "/Music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.root + "/Media/tune.opus", toPath: music + "/song.opus")
        let folderPlay = try await Mediaplay.runInProcess(["play", music, "--audio-out", out, "--untimed"])
        #expect(folderPlay.status == 0, "\(folderPlay.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(Self.root + "/Media/tune.opus")))
    }

    /// Every command's examples read whole at 80 columns: each example line
    /// of a wide help is in the 80-column help as it is, and fits.
    @Test func helpExamplesFitEightyColumns() async throws {
        let top = try await Mediaplay.runInProcess(["--help"], environment: ["COLUMNS": "250"])
        let commands = top.stdout.split(separator: "\n").drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), let word = line.split(separator: " ").first, !line.hasPrefix("   ") else { return nil }
                return String(word)
            }
        #expect(commands.count >= 15, "\(commands)")
        for command in [""] + commands {
            let arguments = command.isEmpty ? ["--help"] : [command, "--help"]
            let wide = try await Mediaplay.runInProcess(arguments, environment: ["COLUMNS": "250"])
            let narrow = try await Mediaplay.runInProcess(arguments, environment: ["COLUMNS": "80"])
            let narrowLines = Set(narrow.stdout.split(separator: "\n").map(String.init))
            for line in wide.stdout.split(separator: "\n") where line.hasPrefix("  mediaplay") {
                #expect(narrowLines.contains(String(line)), "mediaplay \(command) --help breaks \"\(line)\" at 80 columns")
                #expect(line.count <= 80, "mediaplay \(command) --help: \"\(line)\" is wider than 80 columns")
            }
        }
    }
}
