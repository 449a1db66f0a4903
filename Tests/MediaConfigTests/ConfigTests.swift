import MediaConfig
import MediaModel
import Testing

/// config.toml: read whole or refused with its line and column.
@Suite struct ConfigTests {
    @Test func everySectionReads() throws {
        let config = try Config.parse("""
            [playback]
            volume = 80
            speed = 1.25
            mute = false
            autoplay = false
            repeat = "all"
            shuffle = true
            video-output = "terminal"
            images = "blocks"
            start = "beginning"

            [feed]
            default = "~/podcasts.json"

            [cache]
            folder = "/tmp/media-cache"
            max-size = "500M"

            [keys]
            x = "seek +20"
            "ctrl+right" = "seek +60"
            9 = "volume -2"
            m = ""
            """, path: "/home/me/.config/mediaplay/config.toml")
        #expect(config.volume == 80 && config.speed == 1.25 && config.mute == false && config.autoplay == false)
        #expect(config.repeat == .all && config.shuffle == true && config.videoOutput == "terminal" && config.images == "blocks" && config.start == "beginning")
        #expect(config.feed == "~/podcasts.json" && config.cacheFolder == "/tmp/media-cache" && config.maxSize == "500M")
        #expect(config.keymap.bindings["x"] == .seek(.by(20), nil))
        #expect(config.keymap.bindings["ctrl+right"] == .seek(.by(60), nil))
        #expect(config.keymap.bindings["9"] == .volume(.by(-2)))
        #expect(config.keymap.bindings["m"] == nil, "unbound with \"\"")
        #expect(config.keymap.bindings["0"] == .volume(.by(5)), "the rest stay standard")
        #expect(config.changedKeys == ["x", "ctrl+right", "9", "m"])
    }

    @Test(arguments: [
        ("[playback]\nvolume = 80\nvolum = 3\n", 3, 1, "unknown key \"volum\" in [playback] (did you mean \"volume\"?)"),
        ("[playbak]\n", 1, 1, "unknown section [playbak] (did you mean [playback]?)"),
        ("[keys]\nx = \"seek +20\"\n  y = \"volme 5\"\n", 3, 3, "y = \"volme 5\": unknown command \"volme\" (did you mean \"volume\"?)"),
        ("[playback]\nvolume = 151\n", 2, 1, "volume takes a whole number from 0 to 150"),
        ("[playback]\nrepeat = \"twice\"\n", 2, 1, "repeat takes \"off\", \"one\", \"all\", not \"twice\""),
        ("[keys]\n\"shift+x\" = \"next\"\n", 2, 1, "\"shift+x\" is not a key"),
        ("[cache]\nmax-size = \"lots\"\n", 2, 1, "max-size takes a size"),
        ("a = [\n", 1, 7, "encountered end-of-file"),
    ])
    func aMistakeIsOneLineWithItsPosition(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        do {
            _ = try Config.parse(text, path: "/x/config.toml")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.path == "config.toml")
            #expect(error.line == line && (column == 0 || error.column == column), "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("config.toml:\(error.line):\(error.column): "))
        }
    }

    @Test func loudnessKeysRead() throws {
        let config = try Config.parse("""
            [playback]
            loudness = "tags"
            replaygain = "album"
            replaygain-preamp = 2.5
            replaygain-clip = false
            loudness-target = -16
            measure-loudness = false
            af = "equalizer=f=100:t=q:w=1:g=-3"
            """, path: "config.toml")
        #expect(config.loudness == .tags && config.replayGain == .album)
        #expect(config.loudnessOptions == LoudnessOptions(preamp: 2.5, preventClipping: false, target: -16))
        #expect(config.measureLoudness == false && config.audioFilters == "equalizer=f=100:t=q:w=1:g=-3")
        #expect(config.audioSettings(kept: nil).loudness == .tags)
        #expect(throws: ConfigError.self) { try Config.parse("[playback]\nloudness-target = 5", path: "config.toml") }
        #expect(throws: ConfigError.self) { try Config.parse("[playback]\nreplaygain = \"smart\"", path: "config.toml") }
    }

    @Test func trackKeysRead() throws {
        let config = try Config.parse("""
            [playback]
            sid = "no"
            aid = 2
            slang = "de, en"
            alang = "ja"
            sub-delay = -0.5
            """, path: "config.toml")
        #expect(config.trackSettings == TrackSettings(subtitle: .off, audio: .number(2), subtitleLanguages: ["de", "en"], audioLanguages: ["ja"], subtitleDelay: -0.5))
        #expect(throws: ConfigError.self) { try Config.parse("[playback]\naid = \"no\"", path: "config.toml") }
        #expect(throws: ConfigError.self) { try Config.parse("[playback]\nsid = \"first\"", path: "config.toml") }
        #expect(throws: ConfigError.self) { try Config.parse("[playback]\nsub-delay = 1000", path: "config.toml") }
        #expect(throws: ConfigError.self) { try Config.parse("[playback]\nslang = \"\"", path: "config.toml") }
    }

    @Test func webPageKeysRead() throws {
        let config = try Config.parse("""
            [playback]
            ytdl = true
            ytdl-format = "bestvideo[height<=720]+bestaudio/best"
            ytdl-path = "/opt/yt-dlp/yt-dlp"
            max-height = 720
            max-bitrate = "2.5M"
            """, path: "config.toml")
        #expect(config.ytdl == true && config.ytdlFormat == "bestvideo[height<=720]+bestaudio/best" && config.ytdlPath == "/opt/yt-dlp/yt-dlp")
        #expect(config.maxHeight == 720 && config.maxBitrate == 2_500_000)
        #expect(try Config.parse("[playback]\nmax-bitrate = 800000", path: "config.toml").maxBitrate == 800_000)
        #expect(try Config.parse("[playback]\nmax-bitrate = \"800k\"", path: "config.toml").maxBitrate == 800_000)
        for bad in ["ytdl = \"yes\"", "ytdl-format = \"--exec rm\"", "ytdl-format = \"\"", "ytdl-path = \"\"", "max-height = 0", "max-bitrate = \"fast\"", "max-bitrate = \"1e400\"", "max-bitrate = -5"] {
            #expect(throws: ConfigError.self, "\(bad)") { try Config.parse("[playback]\n\(bad)", path: "config.toml") }
        }
    }

    @Test func noFileIsTheDefaults() throws {
        let config = try Config.load(["XDG_CONFIG_HOME": "/nonexistent-\(UInt32.random(in: 0...UInt32.max))"])
        #expect(config == Config())
        #expect(Config.path(["XDG_CONFIG_HOME": "/c", "HOME": "/h"]) == "/c/mediaplay/config.toml")
        #expect(Config.path(["HOME": "/h"]) == "/h/.config/mediaplay/config.toml")
    }
}
