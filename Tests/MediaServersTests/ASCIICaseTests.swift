@testable import MediaServers
import Testing

/// Schemes, host names, UPnP classes and MIME types compared with only
/// ASCII letters folded (RFC 3986, RFC 4343): as Unicode's lowercasing
/// compared them for ASCII text, and never equal for other bytes.
@Suite struct ASCIICaseTests {
    @Test(arguments: [
        ("HTTP", "http", true), ("hTtPs", "https", true), ("http", "https", false), ("", "", true),
        ("Music.Local", "music.local", true), ("music.locaL", "music.local.", false),
        // Only ASCII folds: "İ" and "ı" are not "i"; "@" and "`" (next to the letters) stay themselves.
        ("İ", "i", false), ("ı", "i", false), ("@", "`", false), ("[", "{", false),
    ])
    func equality(_ text: String, _ other: String, _ equal: Bool) {
        #expect(text.equalsIgnoringASCIICase(other) == equal)
        #expect(other.equalsIgnoringASCIICase(text) == equal)
    }

    @Test(arguments: [
        ("object.item.audioItem.musicTrack", "object.item.audioitem", true), ("OBJECT.ITEM.VIDEOITEM", "object.item.videoitem", true),
        ("Audio/MPEG", "audio/", true), ("audio", "audio/", false), ("", "audio/", false), ("image/png", "", true),
        ("object.item.imageİtem", "object.item.imageitem", false),
    ])
    func prefix(_ text: String, _ prefix: String, _ has: Bool) {
        #expect(text.hasLowercasePrefixIgnoringASCIICase(prefix) == has)
    }
}
