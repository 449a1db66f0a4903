import Foundation
import Testing
import InProcessRunner
import TestKit

/// A mediaplay:// link can come from any web page (xdg-open hands it to the
/// desktop entry), so it may name an item of one of the user's own feeds
/// and nothing else: another feed= is refused (no terminal here to ask on)
/// before anything of it is read, fetched, walked or played.
@Suite struct DeepLinkTests {
    /// A user whose default feed is one tone, id "first", with config.toml.
    static func home() async throws -> ConfigFileTests.Home {
        let home = try await ConfigFileTests.Home()
        home.feed = try home.folder.write("feed.json", try await Self.feed(id: "first", title: "Tone"))
        return home
    }

    static func feed(id: String, title: String) async throws -> String {
        #"[{"id": "\#(id)", "type": "audio", "title": "\#(title)", "url": "file://\#(try await HostileRoundThreeTests.tone())"}]"#
    }

    /// Nothing was started or played: no socket, no daemon, no sound.
    static func expectNothingStarted(_ home: UserHome, _ what: String) {
        #expect(!FileManager.default.fileExists(atPath: home.socket), "\(what): no background player was started")
        #expect(SingleDaemonTests.daemons(of: home).isEmpty, "\(what): no background player runs")
        #expect(!FileManager.default.fileExists(atPath: home.disk), "\(what): nothing reached the audio device")
    }

    @Test func aLocalFileIsRefusedAndNeverRead() async throws {
        let home = try await Self.home()
        let key = try home.folder.write("id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nDEEP-LINK-SECRET-4242\n-----END OPENSSH PRIVATE KEY-----\n")
        let environment = home.environment.merging(["DEEP_LINK_MARKER": "ENV-SECRET-4343"]) { $1 }
        for file in [key, "/proc/self/environ"] {
            let opened = try await Mediaplay.run(["open", "mediaplay://item/first?feed=\(file)"], environment: environment)
            #expect(opened.status == 77, "\(file): \(opened.stderr)")
            #expect(opened.stderr.hasPrefix("mediaplay: refusing \"mediaplay://item/first?feed=\(file)\": its feed \(file) is not one of yours"), "\(opened.stderr)")
            #expect(opened.stderr.split(separator: "\n").count == 1, "one line: \(opened.stderr)")
            let said = (opened.stdout + opened.stderr).lowercased()
            #expect(!said.contains("secret-4242") && !said.contains("begin openssh") && !said.contains("secret-4343"), "\(file): its bytes are never printed")
            Self.expectNothingStarted(home, file)
        }
    }

    @Test func aFolderIsRefusedAndNothingPlays() async throws {
        let home = try await Self.home()
        let folder = home.folder.path + "/music"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try await HostileRoundThreeTests.tone(), toPath: folder + "/tone.wav")
        for link in ["mediaplay://item/tone?feed=\(folder)", "mediaplay://item/tone?feed=/"] {
            let opened = try await home.runInProcess("open", link)
            #expect(opened.status == 77, "\(link): \(opened.stderr)")
            Self.expectNothingStarted(home, link)
        }
    }

    @Test func aRemoteFeedIsRefusedWithoutARequest() async throws {
        let home = try await Self.home()
        let server = try TestHTTPServer()
        server.serve("/feed.json", bytes: Array(#"[{"id": "far", "type": "audio", "url": "\#(server.url("/far.wav").absoluteString)"}]"#.utf8))
        server.serve("/far.wav", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: try await HostileRoundThreeTests.tone()))))
        let opened = try await home.runInProcess("open", "mediaplay://item/far?feed=\(server.url("/feed.json").absoluteString)")
        #expect(opened.status == 77, "\(opened.stderr)")
        #expect(server.requests("/feed.json").isEmpty && server.requests("/far.wav").isEmpty, "nothing was fetched")
        Self.expectNothingStarted(home, "a remote feed")
    }

    /// Values are values: an option's spelling is a feed's name like any
    /// other (not "Missing value for --feed" with toggle's usage).
    @Test func optionLookingValuesAreRefusedAsValues() async throws {
        let home = try await Self.home()
        for value in ["--cache-dir=/", "--help", "-h", "--feed"] {
            let opened = try await home.runInProcess("open", "mediaplay://item/first?feed=\(value)")
            #expect(opened.status == 77, "\(value): \(opened.stderr)")
            #expect(opened.stderr.contains("its feed \(value) is not one of yours"), "\(opened.stderr)")
            #expect(!opened.stderr.contains("Missing value") && !opened.stderr.contains("USAGE") && opened.stdout.isEmpty, "\(opened.stdout)\(opened.stderr)")
            Self.expectNothingStarted(home, value)
        }
    }

    /// A percent-encoded NUL cut the value short (to the user's own feed,
    /// here); a newline would split a line. Both are refused.
    @Test func controlCharactersAreRefused() async throws {
        let home = try await Self.home()
        for link in ["mediaplay://item/first?feed=\(home.feed)%00.evil", "mediaplay://item/first?feed=a%0Ab", "mediaplay://item/fir%0Ast", "mediaplay://item/first%00"] {
            let opened = try await home.runInProcess("open", link)
            #expect(opened.status == 64, "\(link): \(opened.stderr)")
            #expect(opened.stderr.contains("holds a control character"), "\(opened.stderr)")
            Self.expectNothingStarted(home, link)
        }
    }

    /// The user's own feeds still open their items: the default one (named
    /// or not), one named in config.toml (by name or path) and the one the
    /// background player plays.
    @Test func theUsersOwnFeedsOpenTheirItems() async throws {
        let home = try await Self.home()
        let named = try home.folder.write("named.json", try await Self.feed(id: "named", title: "Named"))
        let other = try home.folder.write("other.json", try await Self.feed(id: "other", title: "Other"))
        try home.writeConfig("[feeds]\nmine = \"\(named)\"\n")
        // (Playing or paused: the tone may end between two toggles.)
        let own: [(link: String, title: String)] = [
            ("mediaplay://item/first", "Tone"),
            ("mediaplay://item/first?feed=\(home.feed)", "Tone"),
            ("mediaplay://item/named?feed=mine", "Named"),
            ("mediaplay://item/named?feed=\(named)", "Named"),
        ]
        for (link, title) in own {
            // The player refuses another feed's item: each feed gets one of its own.
            if link.hasSuffix("=mine") { _ = try await home.runInProcess("quit") }
            let opened = try await home.runInProcess("open", link)
            #expect(opened.status == 0 && opened.stdout.contains(" 1 \"\(title)\""), "\(link): \(opened.stdout)\(opened.stderr)")
        }
        _ = try await home.runInProcess("quit")

        // Neither named nor the default: the background player's own feed.
        let started = try await home.runInProcess("toggle", "1", "--feed", other)
        #expect(started.status == 0, "\(started.stderr)")
        let opened = try await home.runInProcess("open", "mediaplay://item/other?feed=\(other)")
        #expect(opened.status == 0 && opened.stdout.contains(" 1 \"Other\""), "\(opened.stdout)\(opened.stderr)")
        _ = try await home.runInProcess("quit")
        #expect(try await home.runInProcess("open", "mediaplay://item/other?feed=\(other)").status == 77, "once it has quit, that feed is no longer one of the user's")
    }
}
