import ArgumentParser
import Foundation
import MediaModel
import MediaplayCommandLine
import MediaEngine
import MediaplayCommon

/// `--audio-out` and `--video-out`, shared by `play` and `script`: record what
/// is played instead of sending it to the device and the window.
struct RecordingOptions: ParsableArguments {
    @Option(name: .customLong("audio-out"), help: ArgumentHelp("Record the audio played to this WAV file instead of the device.", valueName: "file.wav"))
    var audioOut: String?

    @Option(name: .customLong("video-out"), help: ArgumentHelp("Record a line per video frame (time, MD5) to this file instead of a window.", valueName: "file"))
    var videoOut: String?

    var isRecording: Bool { audioOut != nil || videoOut != nil }

    /// Checked at once (the file itself opens with the first sound), so a
    /// folder or a path that cannot be written fails before playing.
    func audioFileSink() throws(CLIError) -> WAVFileSink? {
        guard let audioOut else { return nil }
        let path = absolutePath(audioOut)
        if let kind = SystemErrorText.kind(of: path), kind == "it is a folder" {
            throw CLIError("cannot write \(audioOut): \(kind)", exitCode: .ioError)
        }
        return WAVFileSink(path: path)
    }

    /// Created at once, so a path that cannot be written fails before playing.
    func frameHashSink() throws(CLIError) -> FrameHashSink? {
        guard let videoOut else { return nil }
        do {
            return try FrameHashSink(path: absolutePath(videoOut))
        } catch {
            throw CLIError((error as? OutputFileError)?.description ?? "cannot write \(videoOut): \(SystemErrorText.describe(error))", exitCode: .ioError)
        }
    }
}
