/// What a player reads: a file, a byte source (a download in progress), an
/// adaptive stream (HLS, DASH) libavformat fetches from its manifest, or
/// pictures and sound apart (a site's best video and best audio as two
/// files), played together as one item.
public indirect enum MediaInput: Sendable {
    case file(String)
    case source(any ByteSource)
    case stream(RemoteStream)
    case separate(video: MediaInput, audio: MediaInput)
}
