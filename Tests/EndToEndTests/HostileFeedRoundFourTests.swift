import Foundation
import Testing
import InProcessRunner
import TestKit

/// The fourth probe's feeds and folders (issue #41), through the built
/// programs: what a user sees is one line of ours, and a folder plays.
@Suite struct HostileFeedRoundFourTests {
    /// An XML feed declaring an encoding its bytes are not in (EBCDIC on
    /// ASCII, UTF-32 on UTF-8) or one libxml2 does not know: read as UTF-8
    /// (issue #44), with our one line saying so, never libxml2's own
    /// ("encoding error : input conversion failed").
    @Test(arguments: ["EBCDIC-US", "UTF-32", "x-no-such-encoding"])
    func aFeedInAnEncodingLibxmlCannotReadIsOneLine(encoding: String) async throws {
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.xml", #"<?xml version="1.0" encoding="\#(encoding)"?><rss version="2.0"><channel><title>T</title><item><title>Ep</title></item></channel></rss>"#)
        let result = try await Mediaplay.runInProcess(["list", "--feed", feed, "--cache-dir", folder.path + "/cache"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("mediaplay: note: \(feed) is not well-formed; read by mending it: its declared encoding \"\(encoding.lowercased())\""), "\(result.stderr)")
        #expect(result.stdout.contains("Ep"))
        let json = try await Mediaplay.runInProcess(["list", "--json", "--feed", feed, "--cache-dir", folder.path + "/cache"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let repaired = (document?["feed"] as? [String: Any])?["repaired"] as? [String]
        #expect(repaired?.count == 1 && repaired?[0].hasPrefix("its declared encoding") == true, "\(json.stdout)")
    }

    /// Playing an item of a feed read by mending it says so too, in the
    /// same one line as `list` (issue #44), and plays it as ffmpeg decodes it.
    @Test func playingFromAMendedFeedSaysItWasMended() async throws {
        let folder = try TemporaryDirectory()
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let tone = try await Fixtures.make(fixture.name, fixture.arguments)
        // A bare "&" in a title: not well-formed, mended as every feed reader does.
        let feed = try folder.write("feed.xml", #"<rss version="2.0"><channel><title>T</title><item><title>Tom & Jerry</title><enclosure url="file://\#(tone)" type="audio/wav"/></item></channel></rss>"#)
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.run(["play", "1", "--feed", feed, "--cache-dir", folder.path + "/cache", "--audio-out", out, "--untimed"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("mediaplay: note: \(feed) is not well-formed; read by mending it:"), "\(result.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(tone)))
    }

    /// `play FOLDER` where a file's name is not UTF-8: that file is left
    /// out with a note, and the others play (it was "file not found", and
    /// playback stopped there).
    @Test func aFolderWithANameThatIsNotUTF8Plays() async throws {
        let folder = try TemporaryDirectory()
        let root = folder.path + "/Music"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let fixture = Fixtures.audioCodecs.first { $0.name == "tone.wav" }!
        let tone = try await Fixtures.make(fixture.name, fixture.arguments)
        try FileManager.default.copyItem(atPath: tone, toPath: root + "/b.wav")
        // "a\xFF.wav", sorted first: its bytes written by open(2), as FileManager cannot.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tone)))
        let badName = Array((root + "/a").utf8CString.dropLast()) + [CChar(bitPattern: 0xFF)] + Array(".wav".utf8CString)
        let fd = open(badName, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        defer { unlink(badName) }

        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.runInProcess(["play", root, "--audio-out", out, "--untimed", "--cache-dir", folder.path + "/cache"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note: 1 file or folder is left out: its name is not UTF-8"), "\(result.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(tone)))
    }
}
