import CFFmpeg

/// A failed FFmpeg call, with FFmpeg's own message (av_strerror).
public struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int32
    /// What we were doing, e.g. "opening song.mp3".
    public var context: String
    public var message: String
    /// The bytes could not be had (a download failed), rather than decoded.
    public var isInputFailure = false

    public init(code: Int32, context: String) {
        self.code = code
        self.context = context
        var buffer = [CChar](repeating: 0, count: 256)
        if mp_av_strerror(code, &buffer, buffer.count) == 0 {
            message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else {
            message = "FFmpeg error \(code)"
        }
    }

    public init(context: String, message: String) {
        self.code = 0
        self.context = context
        self.message = message
    }

    /// A byte source's failure, in its own words (a download error).
    init(inputFailure message: String, name: String) {
        self.init(context: "download of \(name) failed", message: message)
        isInputFailure = true
    }

    public var description: String { "\(context): \(message)" }

    static let eof = mp_averror_eof()
    static let again = mp_averror_eagain()
    static let invalidData = mp_averror_invaliddata()
}

/// Throws for a negative FFmpeg return code.
@discardableResult
func check(_ code: Int32, _ context: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
    if code < 0 { throw FFmpegError(code: code, context: context()) }
    return code
}

extension AVRational {
    var seconds: Double { den == 0 ? 0 : Double(num) / Double(den) }
}
