import ArgumentParser
import MediaFeed
import MediaModel
import MediaConfig
import Foundation
import MediaTerminal
import MediaListing
import MediaplayCommandLine
import MediaEngine
import MediaSession
import MediaServers
import MediaFeedLoading
import MediaWiring
import MediaplayCommon

struct ScriptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "script",
        abstract: "Run scripted playback (for tests and CI) and print a JSON-lines transcript.",
        discussion: """
            Plays the feed's items in this process, one step per line:
              toggle N                      play, pause or resume item N (number or id)
              stop [N]                      stop item N (else the active one): it resumes later
              wait 1.5s                     let time pass (also 500ms)
              wait-until STATE N [TIMEOUT]  playing, paused, stopped, ended or cached (default 10s)
              seek N SECONDS                move item N to that time
              expect state N STATE          idle, downloading, playing, buffering, paused,
                                            stopped, ended or failed
              expect position N 1.5 ±0.05   where item N is, within a tolerance
              volume N                      set the volume, 0–150 (a linear gain)
              mute [on|off]                 mute, unmute, or toggle
              expect volume N               the volume is N
              speed X, expect speed X       set or check the speed, 0.25–4
              next, prev                    the playlist's next or previous item
              autoplay on|off               play on when an item ends (off by default here)
              repeat off|one|all            repeat nothing, the item, or the feed
              shuffle on|off                a random order, fixed until off
              expect item N                 item N is the current item
              subtitle next|off|N           choose or hide the subtitles
              audio-track next|N            choose the audio track
              expect subtitle "TEXT"|none   the subtitle showing (\\n between lines)
              status                        every item that is not idle
              # comment

            With --clock virtual (the default when recording with --audio-out or \
            --video-out) a wait plays that much media as fast as decoding allows, so \
            a one-minute script runs in well under a second and always gives the \
            same output; what it does not record is discarded (a device and a window \
            play in real time only). With --clock real, the audio device and a window \
            play as with 'mediaplay play'. Exit status 0 when every expectation holds, 1 at the first \
            that fails (its line is named), 65 for a script that cannot be read.

            Example:
              printf 'toggle 1\\nwait 1s\\ntoggle 1\\nexpect position 1 1.0 ±0.01\\n' | \\
                mediaplay script - --audio-out out.wav
            """
    )

    enum Clock: String, ExpressibleByArgument, CaseIterable {
        case real, virtual
    }

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The script file, or - for standard input.", valueName: "file|-"))
    var file: String

    @OptionGroup var recording: RecordingOptions

    @OptionGroup(title: "Loudness and filters") var loudness: LoudnessFlags
    @OptionGroup(title: "Tracks and subtitles") var tracks: TrackFlags

    @Option(name: .long, help: "real: waits take wall time; virtual: media time, as fast as decoding allows (default: virtual when recording, else real).")
    var clock: Clock?

    func run() async throws {
        try await runReportingErrorsAsync {
            let text = try readScript()
            let script: Script
            // Every error names the script and its line alike: `walk.txt:3: …`.
            let name = file == "-" ? "<stdin>" : file
            do {
                script = try Script(text)
            } catch {
                guard let error = error as? Script.ParseError else { throw CLIError("\(name): \(error)", exitCode: .dataError) }
                throw CLIError("\(name):\(error.line): \(error.message)", exitCode: .dataError)
            }
            let loaded = try FeedLoading.load(global)
            let cache = try CacheAccess.open(global)
            let virtual = (clock ?? (recording.isRecording ? .virtual : .real)) == .virtual
            // One recording across every item the script plays.
            let audioRecord = try recording.audioFileSink().map(ContinuousAudioSink.init)
            let videoRecord = try recording.frameHashSink().map(ContinuousVideoSink.init)
            let audio: MediaPlayerFactory.Audio = audioRecord.map { sink in .sink { sink } } ?? (virtual ? .sink { NullSink() } : .device)
            let video: MediaPlayerFactory.Video = videoRecord.map { sink in .sink { _ in sink } } ?? (virtual ? .off : .window())
            // A script's transcript is its output: what is missing plays silently, unsaid.
            // Recorded or in virtual time, a script is exact: only its
            // command line's loudness and filters, not config.toml's.
            let exact = recording.isRecording || virtual
            let config = exact ? Config() : LoadedConfig.current
            let engine = try loudness.engine(clock: virtual ? .virtual : .realTime, audio: audio, video: video, config: config, exact: exact, global: global, subtitleFiles: tracks.subtitlePaths) { _ in }
            let session = MediaSession(
                feed: loaded.feed, store: cache, positions: nil, engine: engine, settings: loudness.settings(AudioSettings(), recording: exact, config: config),
                tracks: tracks.settings(config: config), pages: PageOptions.resolver(audioOnly: false), reports: ServerPlays.shared
            )
            let runner = ScriptRunner(session: session, virtualClock: virtual) { line in
                StandardStream.output((line + "\n").utf8)
            }
            var failure: ScriptRunner.Failure?
            do {
                try await runner.run(script)
            } catch let error as ScriptRunner.Failure {
                failure = error
            } catch {
                failure = ScriptRunner.Failure(line: 0, message: "\(error)")
            }
            await session.shutdown()
            try? audioRecord?.finish()
            try? videoRecord?.finish()
            if let failure {
                throw CLIError("\(name):\(failure.line): \(failure.message)", exitCode: .failure)
            }
        }
    }

    private func readScript() throws(CLIError) -> String {
        if file == "-" {
            return String(decoding: CommandContext.current.readInput(), as: UTF8.self)
        }
        guard let data = FileManager.default.contents(atPath: absolutePath(file)) else {
            throw CLIError("cannot read the script \(file)", exitCode: .noInput)
        }
        return String(decoding: data, as: UTF8.self)
    }
}
