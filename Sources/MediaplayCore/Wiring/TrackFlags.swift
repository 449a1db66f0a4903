import ArgumentParser
import Foundation
import MediaConfig
import MediaEngine
import MediaModel

/// Audio and subtitle tracks, shared by `play` and `script`, as mpv names
/// them: the command line, else config.toml's [playback], else the
/// player's choice (the user's languages, `LANG`, then the first).
struct TrackFlags: ParsableArguments {
    @Option(name: .customLong("sid"), help: ArgumentHelp("Subtitle track: its number, auto or no.", valueName: "N|auto|no"))
    var subtitle: String?

    @Option(name: .customLong("slang"), help: ArgumentHelp("Subtitle languages to prefer, in order (en,de).", valueName: "languages"))
    var subtitleLanguages: String?

    @Option(name: .customLong("aid"), help: ArgumentHelp("Audio track: its number or auto.", valueName: "N|auto"))
    var audio: String?

    @Option(name: .customLong("alang"), help: ArgumentHelp("Audio languages to prefer, in order (en,de).", valueName: "languages"))
    var audioLanguages: String?

    @Option(name: .customLong("sub-file"), help: ArgumentHelp("A subtitle file (SubRip, WebVTT, ASS) to add; repeatable.", valueName: "path"))
    var subtitleFiles: [String] = []

    @Option(name: .customLong("sub-delay"), help: ArgumentHelp("Seconds to show subtitles later (or earlier, negative).", valueName: "seconds"))
    var subtitleDelay: Double?

    func validate() throws {
        if let subtitle, TrackSettings.Pick(subtitle) == nil { throw ValidationError("--sid takes a track's number, auto or no, not \"\(subtitle)\"") }
        if let audio, TrackSettings.Pick(audio) == nil || TrackSettings.Pick(audio) == .off {
            throw ValidationError("--aid takes a track's number or auto, not \"\(audio)\"")
        }
        if let subtitleDelay, !TrackSettings.delayRange.contains(subtitleDelay) { throw ValidationError("--sub-delay takes seconds from -600 to 600") }
        for path in subtitleFiles {
            var info = stat()
            guard stat(path, &info) == 0 else { throw ValidationError("--sub-file \(path): no such file") }
            guard info.st_mode & S_IFMT == S_IFREG else { throw ValidationError("--sub-file \(path): not a regular file") }
            guard Int64(info.st_size) <= SubtitleLimits.fileBytes else {
                throw ValidationError("--sub-file \(path): larger than \(SubtitleLimits.fileBytes >> 20) MiB, more than a player takes")
            }
        }
    }

    /// The tracks a player starts with: this command line over the config's.
    func settings(config: Config) -> TrackSettings {
        var settings = config.trackSettings
        if let subtitle = subtitle.flatMap(TrackSettings.Pick.init) { settings.subtitle = subtitle }
        if let audio = audio.flatMap(TrackSettings.Pick.init) { settings.audio = audio }
        if let subtitleLanguages { settings.subtitleLanguages = TrackSettings.languages(subtitleLanguages) }
        if let audioLanguages { settings.audioLanguages = TrackSettings.languages(audioLanguages) }
        if let subtitleDelay { settings.subtitleDelay = subtitleDelay }
        return settings
    }

    /// `--sub-file`s as absolute paths (the player may run elsewhere).
    var subtitlePaths: [String] {
        subtitleFiles.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }
}
