import Foundation
import Testing
import TestKit

/// State writes are checked (issue #41, round 4): `mark`, the kept
/// settings, the background player's positions and `feeds` report a write
/// that failed (exit 74, one line naming the file and the fix) instead of
/// saying "played", and no file's mode is changed (a 0444 positions.sqlite
/// was made 0600).
@Suite struct StateWriteTests {
    /// A user the permission bits hold: the tests run as root, who writes
    /// a 0444 file anyway, so the programs run as nobody (setpriv) in a
    /// home of nobody's.
    final class LimitedHome: Sendable {
        let folder: TemporaryDirectory
        let home: String
        let feed: String
        /// nobody's uid and gid when the tests run as root (nil: run as is).
        let user: (uid: uid_t, gid: gid_t)?

        init() throws {
            folder = try TemporaryDirectory()
            home = folder.path + "/home"
            try FileManager.default.createDirectory(atPath: home + "/state/mediaplay", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: home + "/run", withIntermediateDirectories: true)
            try folder.write("home/talk.mp3", "not really sound")
            feed = try folder.write("home/feed.json", #"[{"type": "audio", "title": "Talk", "url": "file://\#(folder.path)/home/talk.mp3"}]"#)
            if geteuid() == 0, let nobody = getpwnam("nobody") {
                user = (nobody.pointee.pw_uid, nobody.pointee.pw_gid)
                chmod(folder.path, 0o755)
            } else {
                user = nil
            }
            handOver()
        }

        /// Gives everything in the home to the user the programs run as.
        func handOver() {
            guard let user else { return }
            lchown(home, user.uid, user.gid)
            let paths = FileManager.default.enumerator(atPath: home)?.compactMap { $0 as? String } ?? []
            for path in paths { lchown(home + "/" + path, user.uid, user.gid) }
        }

        var state: String { home + "/state/mediaplay" }
        var positions: String { state + "/positions.sqlite" }

        var environment: [String: String] {
            [
                "HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CACHE_HOME": home + "/cache",
                "XDG_RUNTIME_DIR": home + "/run", "XDG_CONFIG_HOME": home + "/config", "MEDIAPLAY_FEED": feed,
                "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null",
            ]
        }

        func start(_ arguments: [String]) throws -> RunningProcess {
            guard let user else { return try Mediaplay.start(arguments, environment: environment) }
            return try Mediaplay.start(
                ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", Mediaplay.executable] + arguments,
                environment: environment, executable: "/usr/bin/setpriv"
            )
        }

        func run(_ arguments: String...) async throws -> RunResult {
            try await start(arguments).wait()
        }
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// The one line a failed save prints.
    static func expectOneLine(_ result: RunResult, _ line: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 74 && !result.killedBySignal, "\(result.status) \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr == "mediaplay: " + line + "\n", sourceLocation: sourceLocation)
    }

    /// `mark` on a read-only database: exit 74, nothing said marked, the
    /// file still 0444 and its marks as they were.
    @Test func markOnAReadOnlyDatabaseFails() async throws {
        let home = try LimitedHome()
        let first = try await home.run("mark", "1", "played")
        #expect(first.status == 0 && first.stdout == "1 Talk: played\n", "\(first.stderr)")
        #expect(Self.mode(home.positions) == 0o600, "made private")
        chmod(home.positions, 0o444)
        let refused = try await home.run("mark", "1", "unplayed")
        Self.expectOneLine(refused, "cannot save to \(home.positions): it is read-only (check its permissions)")
        #expect(refused.stdout.isEmpty, "\(refused.stdout)")
        #expect(Self.mode(home.positions) == 0o444)
        let list = try await home.run("list")
        #expect(list.status == 0 && list.stdout.contains("✓ Talk"), "still played, and read: \(list.stdout) \(list.stderr)")
    }

    /// `mark` with the state folder 0555: the journal cannot be made, so
    /// nothing is saved; the message names the folder, the file keeps 0644.
    @Test func markInAReadOnlyFolderFails() async throws {
        let home = try LimitedHome()
        #expect(try await home.run("mark", "1", "played").status == 0)
        chmod(home.positions, 0o644)
        chmod(home.state, 0o555)
        let refused = try await home.run("mark", "1", "unplayed")
        Self.expectOneLine(refused, "cannot save to \(home.positions): its folder \(home.state) is read-only (check the folder's permissions)")
        #expect(Self.mode(home.positions) == 0o644)
        chmod(home.state, 0o700)
    }

    /// Settings kept while no background player runs: a failed save is
    /// exit 74 (it said "kept"); reading them still works.
    @Test func keptSettingsThatCannotBeSavedFail() async throws {
        let home = try LimitedHome()
        #expect(try await home.run("volume", "50").status == 0)
        chmod(home.positions, 0o444)
        let line = "cannot save to \(home.positions): it is read-only (check its permissions)"
        Self.expectOneLine(try await home.run("volume", "30"), line)
        Self.expectOneLine(try await home.run("repeat", "one"), line)
        let volume = try await home.run("volume")
        #expect(volume.status == 0 && volume.stdout.contains("volume 50 %"), "\(volume.stdout) \(volume.stderr)")
        #expect(Self.mode(home.positions) == 0o444)
    }

    /// `feeds` lists the feeds, then fails when what is new in them could
    /// not be kept.
    @Test func feedsReportAStateThatCannotBeSaved() async throws {
        let home = try LimitedHome()
        try home.folder.write("home/config/mediaplay/config.toml", "[feeds]\ntalks = \"\(home.feed)\"\n")
        home.handOver()
        #expect(try await home.run("volume", "50").status == 0)
        chmod(home.positions, 0o444)
        let feeds = try await home.run("feeds")
        #expect(feeds.stdout.contains("talks"), "\(feeds.stdout)")
        Self.expectOneLine(feeds, "cannot save to \(home.positions): it is read-only (check its permissions)")
    }

    /// The background player keeps positions and settings in the
    /// background, where a failure reaches no one: it refuses to start.
    @Test(.timeLimit(.minutes(1))) func theBackgroundPlayerRefusesAStoreThatCannotSave() async throws {
        let home = try LimitedHome()
        #expect(try await home.run("volume", "50").status == 0)
        chmod(home.positions, 0o444)
        // Its exit is the event: a player that does not refuse runs until the time limit.
        let result = try await home.start(["daemon", "--foreground"]).wait()
        Self.expectOneLine(result, "cannot save to \(home.positions): it is read-only (check its permissions)")
    }

    /// `feeds import` refuses a read-only config.toml, and the file it
    /// writes keeps the old one's mode.
    @Test func feedsImportKeepsConfigModes() async throws {
        let home = try LimitedHome()
        let opml = try home.folder.write("home/subscriptions.opml", #"<opml version="2.0"><body><outline type="rss" text="News" xmlUrl="https://example.org/news.rss"/></body></opml>"#)
        // Imported feeds are kept in feeds.toml beside config.toml.
        let config = try home.folder.write("home/config/mediaplay/feeds.toml", "# mine\n")
        home.handOver()
        chmod(config, 0o444)
        let refused = try await home.run("feeds", "import", opml)
        Self.expectOneLine(refused, "cannot save to \(config): it is read-only (check its permissions)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "# mine\n")
        chmod(config, 0o640)
        let imported = try await home.run("feeds", "import", opml)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8).contains("news.rss"))
        #expect(Self.mode(config) == 0o640)
    }
}
