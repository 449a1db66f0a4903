import ArgumentParser
import Foundation
import MediaConfig
import MediaEngine
import MediaPages

/// `--ytdl-format` and `--no-ytdl`: how a web page plays (through yt-dlp,
/// as in mpv), over config.toml's `[playback] ytdl`, `ytdl-format`, `ytdl-path`.
struct PageOptions: ParsableArguments {
    @Option(name: .customLong("ytdl-format"), help: ArgumentHelp("The yt-dlp format a web page plays in (default: bestvideo+bestaudio/best; bestaudio/best with no pictures).", valueName: "format"))
    var format: String?

    @Flag(name: .customLong("no-ytdl"), help: "Do not resolve web pages through yt-dlp.")
    var off = false

    func validate() throws {
        if let format, format.isEmpty || format.hasPrefix("-") { throw ValidationError("--ytdl-format takes a yt-dlp format, like bestaudio/best") }
    }

    /// The resolver, or nil when pages are turned off; `audioOnly` when no
    /// picture will show (mpv picks the audio alone then).
    func resolver(audioOnly: Bool, config: Config = LoadedConfig.current) -> YTDL? {
        Self.resolver(format: format, off: off, audioOnly: audioOnly, config: config)
    }

    static func resolver(format: String? = nil, off: Bool = false, audioOnly: Bool, config: Config = LoadedConfig.current) -> YTDL? {
        if off || config.ytdl == false { return nil }
        return YTDL(program: config.ytdlPath ?? "yt-dlp", format: format ?? config.ytdlFormat ?? (audioOnly ? YTDL.audioFormat : YTDL.videoFormat), socketTimeout: config.networkTimeout)
    }

    /// Whether a window could open (X11 or Wayland).
    static var hasDisplay: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["DISPLAY"]?.isEmpty == false || environment["WAYLAND_DISPLAY"]?.isEmpty == false
    }

    /// `[playback] max-height` and `max-bitrate`.
    static func variantLimits(_ config: Config = LoadedConfig.current) -> VariantLimits {
        VariantLimits(maximumHeight: config.maxHeight, maximumBitrate: config.maxBitrate)
    }
}
