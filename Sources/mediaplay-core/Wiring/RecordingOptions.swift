import ArgumentParser
import Foundation
import MediaplayCommandLine
import MediaEngine

/// `--audio-out` and `--video-out`, shared by `play` and `script`: record what
/// is played instead of sending it to the device and the window.
struct RecordingOptions: ParsableArguments {
    @Option(name: .customLong("audio-out"), help: ArgumentHelp("Record the audio played to this WAV file instead of the device.", valueName: "file.wav"))
    var audioOut: String?

    @Option(name: .customLong("video-out"), help: ArgumentHelp("Record a line per video frame (time, MD5) to this file instead of a window.", valueName: "file"))
    var videoOut: String?

    var isRecording: Bool { audioOut != nil || videoOut != nil }

    func audioFileSink() -> WAVFileSink? {
        audioOut.map { WAVFileSink(path: absolutePath($0)) }
    }

    /// Created at once, so a path that cannot be written fails before playing.
    func frameHashSink() throws(CLIError) -> FrameHashSink? {
        guard let videoOut else { return nil }
        do {
            return try FrameHashSink(path: absolutePath(videoOut))
        } catch {
            throw CLIError("cannot write \(videoOut): \(error.localizedDescription)", exitCode: .ioError)
        }
    }
}
