/// An item as a user names it: `3` (its number in the feed as `list`
/// shows it) or `"sintel"` (its id). Resolved to an `ItemKey` once, at the
/// edge, against the feed as it is then (`Feed.item(matching:)`).
public enum ItemSelector: Codable, Sendable, Equatable, CustomStringConvertible {
    case number(Int)
    case id(String)

    /// Digits become a number, anything else an id.
    public init(_ text: String) {
        if let number = Int(text) { self = .number(number) } else { self = .id(text) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else {
            self = .id(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .number(number): try container.encode(number)
        case let .id(id): try container.encode(id)
        }
    }

    public var description: String {
        switch self {
        case let .number(number): return String(number)
        case let .id(id): return id
        }
    }
}

