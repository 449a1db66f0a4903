/// What a player reads: a file, or a byte source (a download in progress).
public enum MediaInput: Sendable {
    case file(String)
    case source(any ByteSource)
}
