import Foundation

/// Internet radio's in-band metadata (SHOUTcast/Icecast "ICY"): with
/// `Icy-MetaData: 1` asked and `icy-metaint: N` answered, every N bytes of
/// audio come one length byte L, then L × 16 bytes of text such as
/// `StreamTitle='Artist - Song';StreamUrl='';`, padded with NULs. This
/// separates the audio from the metadata, chunk by chunk as they arrive.
struct IcyReader {
    /// Audio bytes between metadata blocks (nil: the stream has none).
    let interval: Int?
    private var untilMetadata: Int
    private var metadataLeft: Int?
    private var metadata: [UInt8] = []

    init(interval: Int?) {
        // A hostile interval (0, negative, huge) is taken as none.
        self.interval = interval.flatMap { (1...(1 << 20)).contains($0) ? $0 : nil }
        untilMetadata = self.interval ?? Int.max
    }

    /// The audio in `bytes`, and each stream title completed in them.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> (audio: [UInt8], titles: [String]) {
        guard let interval else { return (Array(bytes), []) }
        var audio: [UInt8] = []
        audio.reserveCapacity(bytes.count)
        var titles: [String] = []
        var index = 0
        while index < bytes.count {
            if let left = metadataLeft {
                let take = min(left, bytes.count - index)
                metadata.append(contentsOf: bytes[index..<(index + take)])
                index += take
                metadataLeft = left - take
                if metadataLeft == 0 {
                    if let title = Self.streamTitle(metadata) { titles.append(title) }
                    metadata.removeAll(keepingCapacity: true)
                    metadataLeft = nil
                    untilMetadata = interval
                }
            } else if untilMetadata == 0 {
                // The length byte: 0 means no metadata this time.
                let length = Int(bytes[index]) * 16
                index += 1
                if length == 0 { untilMetadata = interval } else { metadataLeft = length }
            } else {
                let take = min(untilMetadata, bytes.count - index)
                audio.append(contentsOf: bytes[index..<(index + take)])
                index += take
                untilMetadata -= take
            }
        }
        return (audio, titles)
    }

    /// `StreamTitle='…';` from a metadata block (UTF-8, else Latin-1).
    static func streamTitle(_ block: [UInt8]) -> String? {
        let text = String(decoding: block.prefix { $0 != 0 }, as: UTF8.self)
        let decoded = text.contains("\u{FFFD}") ? String(block.prefix { $0 != 0 }.map { Character(Unicode.Scalar($0)) }) : text
        guard let start = decoded.range(of: "StreamTitle='") else { return nil }
        let rest = decoded[start.upperBound...]
        let end = rest.range(of: "';")?.lowerBound ?? rest.lastIndex(of: "'") ?? rest.endIndex
        return String(rest[..<end]).trimmingCharacters(in: .whitespaces)
    }
}
