import MediaEngine
import MediaSession

/// The audio device and a window, as the daemon and browse give them to a
/// session: no device means silent real-time playback, no display means a
/// video's audio only; each is said once through `warn`.
enum DeviceOutputs {
    static func make(warn: @escaping @Sendable (String) -> Void) -> SessionOutputs {
        SessionOutputs(
            clock: .realTime,
            makeAudioSink: {
                do {
                    return try SDLAudioSink(probe: true)
                } catch {
                    warn("no audio device (\(error)); playing silently in real time")
                    return NullSink()
                }
            },
            makeVideoSink: { item, info, player in
                do {
                    let window = try SDLVideoSink(title: item.title, rotation: info.rotation)
                    window.controls(player)
                    return window
                } catch {
                    warn("item \(item.position): no window (\(error))\(info.hasAudio ? "; playing the audio only" : "")")
                    return nil
                }
            }
        )
    }
}
