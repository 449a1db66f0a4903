/// What a player reads: a file, a byte source (a download in progress), or
/// an adaptive stream (HLS, DASH) libavformat fetches from its manifest.
public enum MediaInput: Sendable {
    case file(String)
    case source(any ByteSource)
    case stream(RemoteStream)
}
