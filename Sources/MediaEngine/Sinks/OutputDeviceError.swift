/// An output that could not be had: no sound card, no display, or a device
/// that refused to open. SDL's own words are kept in `message`; decoding
/// failures are `FFmpegError`, never this.
public struct OutputDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Device: Sendable, Equatable {
        case audio
        case display
    }

    public var device: Device
    /// What failed, e.g. "no audio device".
    public var context: String
    public var message: String

    public init(_ device: Device, _ context: String, message: String) {
        self.device = device
        self.context = context
        self.message = message
    }

    public var description: String { "\(context): \(message)" }
}
