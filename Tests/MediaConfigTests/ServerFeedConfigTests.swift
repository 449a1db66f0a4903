import MediaConfig
import MediaModel
import Testing

/// `[feeds.NAME]`: a media server's feed with its login, kept apart from
/// its URL; its mistakes are one line each, with where they are.
@Suite struct ServerFeedConfigTests {
    @Test func aServerFeedKeepsItsLoginApart() throws {
        let config = try Config.parse("""
            [feeds]
            news = "https://example.org/rss"
            [feeds.music]
            url = "subsonic+https://music.example.org"
            user = "alice"
            password-command = "pass show music"
            """, path: "config.toml")
        #expect(config.feeds == ["news": "https://example.org/rss", "music": "subsonic+https://music.example.org"])
        #expect(config.feedLogins["subsonic+https://music.example.org"] == ServerLogin(user: "alice", passwordCommand: "pass show music"))
    }

    @Test(arguments: [
        ("[feeds.music]\nuser = \"alice\"\n", "[feeds.music] needs url"),
        ("[feeds.music]\nurl = \"subsonic+https://h\"\npassword = \"a\"\npassword-command = \"b\"\n", "password or password-command, not both"),
        ("[feeds.music]\nurl = \"subsonic+https://h\"\npasswd = \"a\"\n", "unknown key \"passwd\" in [feeds.music]"),
        ("[feeds.music]\nurl = \"subsonic+https://h\"\nuser = 3\n", "[feeds.music] user takes a string"),
    ])
    func mistakesAreOneLine(_ text: String, _ message: String) {
        #expect(throws: ConfigError.self) { try Config.parse(text, path: "config.toml") }
        do {
            _ = try Config.parse(text, path: "config.toml")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(error.description.hasPrefix("config.toml:"))
        }
    }
}
