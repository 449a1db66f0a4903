import Foundation
import Testing
import InProcessRunner
import TestKit

/// Deep links and the desktop: the entry `make install` installs validates
/// and takes the mediaplay: scheme, and `mediaplay open` does what a link
/// or a file means.
@Suite struct DesktopTests {
    static let entry = FirstRunTests.root + "/desktop/mediaplay.desktop"

    @Test func theDesktopEntryValidatesAndHandlesTheScheme() async throws {
        let validated = try await Fixtures.run("/usr/bin/desktop-file-validate", [Self.entry])
        #expect(validated.status == 0 && validated.stdout.isEmpty && validated.stderr.isEmpty, "\(String(decoding: validated.stdout + validated.stderr, as: UTF8.self))")
        let text = try String(contentsOfFile: Self.entry, encoding: .utf8)
        #expect(text.contains("\nTerminal=true\n") && text.contains("\nExec=mediaplay open %U\n"))
        for type in ["x-scheme-handler/mediaplay", "audio/mpeg", "video/mp4", "audio/x-mpegurl", "audio/x-scpls", "application/rss+xml"] {
            #expect(text.contains(type + ";"), "declares \(type)")
        }
        // Installed as `make install` does it, xdg-mime names it for the scheme.
        let home = try TemporaryDirectory()
        let applications = home.path + "/data/applications"
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.entry, toPath: applications + "/mediaplay.desktop")
        #expect(try await Fixtures.run("/usr/bin/update-desktop-database", [applications]).status == 0)
        let query = try await Fixtures.run("/usr/bin/xdg-mime", ["query", "default", "x-scheme-handler/mediaplay"], environment: [
            "HOME": home.path, "XDG_DATA_HOME": home.path + "/data", "XDG_DATA_DIRS": home.path + "/none", "XDG_CONFIG_HOME": home.path + "/config",
            "PATH": "/usr/bin:/bin",
        ])
        #expect(String(decoding: query.stdout, as: UTF8.self) == "mediaplay.desktop\n", "\(String(decoding: query.stdout + query.stderr, as: UTF8.self))")
    }

    /// A file URI plays here, as `play` does.
    @Test func aFileURIPlaysHere() async throws {
        let tone = try await Fixtures.make("tone-half.wav", ["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "pcm_s16le"])
        let folder = try TemporaryDirectory()
        let result = try await Mediaplay.run(["open", URL(fileURLWithPath: tone).absoluteString], environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": folder.path + "/device.raw"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("ended \"tone-half.wav\""), "\(result.stderr)")
        #expect(try DeviceRecording.holds(folder.path + "/device.raw", exactly: try await Fixtures.referencePCM(tone)), "the device got ffmpeg's decoding")
    }
}
