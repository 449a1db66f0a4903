/// What an item is: a picture, a sound or a video. The feed's `type` number
/// (0, 1, 2) is its raw value; everywhere else (the wire, `--json`, the
/// tables) it is its name.
public enum MediaKind: Int, Sendable, CaseIterable, Codable {
    case image = 0
    case audio = 1
    case video = 2

    public var name: String {
        switch self {
        case .image: return "image"
        case .audio: return "audio"
        case .video: return "video"
        }
    }

    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }

    // On the wire by name ("audio"), as `ItemStatus` has always sent it.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let kind = MediaKind(name: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown kind \"\(name)\""))
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
