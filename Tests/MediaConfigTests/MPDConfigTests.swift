import MediaConfig
import Testing

/// `[mpd]`: off unless listen is set; the password, its command and the
/// client limit read, anything else refused with its line.
@Suite struct MPDConfigTests {
    @Test func mpdIsOffUnlessAsked() throws {
        let config = try Config.parse("", path: "config.toml")
        #expect(config.mpdListen == nil && config.mpdPassword == nil && config.mpdPasswordCommand == nil && config.mpdMaxClients == nil)
    }

    @Test func everyKeyReads() throws {
        let config = try Config.parse("""
            [mpd]
            listen = "0.0.0.0:6600"
            password = "sesame"
            password-command = "pass show mpd"
            max-clients = 20
            """, path: "config.toml")
        #expect(config.mpdListen == "0.0.0.0:6600" && config.mpdPassword == "sesame" && config.mpdPasswordCommand == "pass show mpd" && config.mpdMaxClients == 20)
    }

    @Test func badValuesNameTheirLine() {
        for (text, line) in [("[mpd]\nlisten = 6600\n", 2), ("[mpd]\n\nmax-clients = 0\n", 3), ("[mpd]\nmax-clients = \"many\"\n", 2), ("[mpd]\nport = 6600\n", 2)] {
            #expect(throws: ConfigError.self) { try Config.parse(text, path: "config.toml") }
            do {
                _ = try Config.parse(text, path: "config.toml")
            } catch {
                #expect(error.line == line, "\(text)")
            }
        }
    }
}
