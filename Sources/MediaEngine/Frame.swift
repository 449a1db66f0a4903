import CFFmpeg

/// An owned AVFrame, freed exactly once.
public final class Frame: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<AVFrame>

    public init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// Presentation time in `timeBase` units; the decoder's best effort.
    public var timestamp: Int64? {
        let value = pointer.pointee.best_effort_timestamp
        return value == mp_av_nopts_value() ? nil : value
    }
}

/// An owned AVPacket, freed exactly once.
final class Packet: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }
}
