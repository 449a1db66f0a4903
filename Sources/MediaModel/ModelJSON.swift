import Foundation

/// The one JSON encoding of the model (the protocol, `--json`, script
/// transcripts): one line, keys in a stable order, no escaped slashes.
public enum ModelJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The value as one line of text (no newline).
    public static func text(_ value: some Encodable) -> String {
        String(decoding: (try? encoder().encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }
}
